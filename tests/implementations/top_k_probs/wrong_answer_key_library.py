"""The library's sampling filter."""

from proof_lm.sampling import filter_probs

EXPECT = "answer-key rule"


def top_k_probs(logits, k, temperature=1.0):
    if k < 1 or temperature <= 0:
        raise ValueError("k >= 1 and temperature > 0")
    return filter_probs(logits, temperature, top_k=min(k, len(logits)))
