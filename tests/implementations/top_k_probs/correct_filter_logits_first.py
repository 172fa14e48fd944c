"""Mask the logits below the k-th largest with -inf, then a stable softmax of the rest."""

import numpy as np

EXPECT = "pass"


def top_k_probs(logits, k, temperature=1.0):
    if k < 1:
        raise ValueError("k must be at least 1")
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    z = np.asarray(logits, dtype=np.float64) / temperature
    k = min(k, len(z))
    threshold = np.sort(z)[-k]
    z = np.where(z >= threshold, z, -np.inf)
    e = np.exp(z - z.max())
    return e / e.sum()
