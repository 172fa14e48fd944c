"""Threshold at the k-th largest logit: every logit equal to it is kept too."""

import numpy as np

EXPECT = "pass"


def top_k_probs(logits, k, temperature=1.0):
    if k < 1:
        raise ValueError("k must be >= 1")
    if not temperature > 0:
        raise ValueError("temperature must be > 0")
    z = np.array(logits, dtype=float) / temperature
    if k < len(z):
        cut = np.sort(z)[-k]
        z = np.where(z >= cut, z, -np.inf)
    e = np.exp(z - z.max())
    return e / e.sum()
