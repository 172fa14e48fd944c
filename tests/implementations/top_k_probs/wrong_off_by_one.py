"""Keeps k + 1."""

import numpy as np


def _softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


EXPECT = "k + 1"


def top_k_probs(logits, k, temperature=1.0):
    if k < 1 or temperature <= 0:
        raise ValueError("bad arguments")
    p = _softmax(logits / temperature)
    out = np.zeros_like(p)
    keep = np.argsort(-p)[: k + 1]
    out[keep] = p[keep]
    return out / out.sum()
