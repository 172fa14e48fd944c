"""Shifts every score by the maximum of the whole batch, not of its own row."""

import math

import numpy as np

EXPECT = "not stable row by row"


def causal_attention(q, k, v):
    if q.ndim != 3 or k.shape != q.shape or v.ndim != 3 or v.shape[:2] != q.shape[:2]:
        raise ValueError("expected q, k (B, T, d) and v (B, T, d_v)")
    T, d = q.shape[1], q.shape[2]
    scores = q @ k.transpose(0, 2, 1) / math.sqrt(d)
    scores = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, scores)
    w = np.exp(scores - scores.max())
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ v, w
