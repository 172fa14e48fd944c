"""Compares sizes instead of shapes: a 2-d q beside 3-d k and v broadcasts silently."""

import math

import numpy as np

EXPECT = "ValueError"


def causal_attention(q, k, v):
    if q.size != k.size or v.size // v.shape[-1] != q.size // q.shape[-1]:
        raise ValueError("expected q, k (B, T, d) and v (B, T, d_v)")
    T, d = q.shape[-2], q.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(d)
    scores = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, scores)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ v, w
