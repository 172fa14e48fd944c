"""Subtracts each row's maximum before masking, so the maximum includes the future's scores."""

import math

import numpy as np

EXPECT = "over the scores each row keeps"


def causal_attention(q, k, v):
    if q.ndim != 3 or k.shape != q.shape or v.ndim != 3 or v.shape[:2] != q.shape[:2]:
        raise ValueError("expected q, k (B, T, d) and v (B, T, d_v)")
    T, d = q.shape[1], q.shape[2]
    scores = q @ k.transpose(0, 2, 1) / math.sqrt(d)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores) * np.tril(np.ones((T, T)))
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ v, w
