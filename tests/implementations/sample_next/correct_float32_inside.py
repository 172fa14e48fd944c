"""Filters in float32, then draws with float64 probabilities renormalised for rng.choice."""

import numpy as np

EXPECT = "pass"


def sample_next(logits, rng, temperature=1.0, top_k=None, top_p=None):
    z = (np.asarray(logits) / temperature).astype(np.float32)
    probs = np.exp(z - z.max())
    probs /= probs.sum()
    if top_k is not None:
        probs[np.argsort(-probs)[top_k:]] = 0
        probs /= probs.sum()
    if top_p is not None:
        order = np.argsort(-probs)
        before = np.cumsum(probs[order]) - probs[order]
        probs[order[1:][before[1:] >= top_p]] = 0
    probs = probs.astype(np.float64)
    return int(rng.choice(len(probs), p=probs / probs.sum()))
