"""Masks but does not renormalise."""

import numpy as np


def _softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


EXPECT = "do not sum to 1"


def top_k_probs(logits, k, temperature=1.0):
    if k < 1 or temperature <= 0:
        raise ValueError("bad arguments")
    p = _softmax(logits / temperature)
    out = np.zeros_like(p)
    keep = np.argsort(-p)[:k]
    out[keep] = p[keep]
    return out
