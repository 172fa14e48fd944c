"""The library's filter and draw."""

from proof_lm.sampling import draw, filter_probs

EXPECT = "answer-key rule"


def sample_next(logits, rng, temperature=1.0, top_k=None, top_p=None):
    k = None if top_k is None else min(top_k, len(logits))
    return int(draw(filter_probs(logits, temperature, k, top_p), rng))
