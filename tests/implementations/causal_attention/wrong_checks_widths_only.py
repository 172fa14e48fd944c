"""Checks dimensions and widths but not batch sizes: a k of batch 1 broadcasts silently."""

import math

import numpy as np

EXPECT = "ValueError"


def causal_attention(q, k, v):
    if q.ndim != 3 or k.ndim != 3 or v.ndim != 3 or q.shape[-1] != k.shape[-1]:
        raise ValueError("expected q, k (B, T, d) and v (B, T, d_v)")
    if v.shape[:2] != q.shape[:2]:
        raise ValueError("v must be (B, T, d_v)")
    T, d = q.shape[1], q.shape[2]
    scores = q @ k.transpose(0, 2, 1) / math.sqrt(d)
    scores = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, scores)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ v, w
