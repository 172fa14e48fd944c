"""Masks the diagonal too (j >= t)."""

import math

import numpy as np

EXPECT = "the diagonal was masked"


def causal_attention(q, k, v):
    if q.ndim != 3 or k.shape != q.shape or v.ndim != 3 or v.shape[:2] != q.shape[:2]:
        raise ValueError("expected q, k (B, T, d) and v (B, T, d_v)")
    T, d = q.shape[1], q.shape[2]
    scores = q @ k.transpose(0, 2, 1) / math.sqrt(d)
    scores = np.where(np.triu(np.ones((T, T), dtype=bool)), -np.inf, scores)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ v, w
