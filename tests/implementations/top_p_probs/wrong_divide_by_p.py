"""Divides the kept mass by p instead of by its own sum."""

import numpy as np

EXPECT = "differ"


def top_p_probs(logits, p, temperature=1.0):
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    z = logits / temperature
    probs = np.exp(z - z.max())
    probs /= probs.sum()
    order = np.argsort(-probs)
    before = np.cumsum(probs[order]) - probs[order]
    out = np.zeros_like(probs)
    keep = order[(before < p) | (np.arange(len(order)) == 0)]
    out[keep] = probs[keep]
    return out / p
