"""Masks the caller's logits in place before the softmax."""

import numpy as np

EXPECT = "modified"


def top_k_probs(logits, k, temperature=1.0):
    if k < 1 or temperature <= 0:
        raise ValueError("k must be >= 1 and temperature > 0")
    z = np.asarray(logits, dtype=np.float64)
    if k < len(z):
        z[np.argsort(-z)[k:]] = -np.inf
    z = z / temperature
    e = np.exp(z - z.max())
    return e / e.sum()
