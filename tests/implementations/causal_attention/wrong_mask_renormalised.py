"""Softmax over every key, then zero the future and renormalise: the past underflows to 0/0 when
the future scores far above it."""

import math

import numpy as np

EXPECT = "over the scores each row keeps"


def causal_attention(q, k, v):
    if q.ndim != 3 or k.shape != q.shape or v.ndim != 3 or v.shape[:2] != q.shape[:2]:
        raise ValueError("expected q, k (B, T, d) and v (B, T, d_v)")
    T, d = q.shape[1], q.shape[2]
    scores = q @ k.transpose(0, 2, 1) / math.sqrt(d)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    w = w * np.tril(np.ones((T, T)))
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ v, w
