"""The library's sampling filter."""

from proof_lm.sampling import filter_probs

EXPECT = "answer-key rule"


def top_p_probs(logits, p, temperature=1.0):
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    return filter_probs(logits, temperature, top_p=p)
