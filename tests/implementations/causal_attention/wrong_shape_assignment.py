"""Rows taken with `a.shape = (B * T, d)` (a view, never a copy): fails on non-contiguous input."""

import math

import numpy as np

EXPECT = "non-contiguous"


def causal_attention(q, k, v):
    if q.ndim != 3 or k.shape != q.shape or v.ndim != 3 or v.shape[:2] != q.shape[:2]:
        raise ValueError("expected q, k (B, T, d) and v (B, T, d_v)")
    B, T, d = q.shape
    flat = []
    for a in (q, k, v):
        view = a.view()
        view.shape = (B * T, a.shape[2])  # rows (b, t): raises unless a is contiguous
        flat.append(view.reshape(B, T, a.shape[2]))
    qt, kt, vt = flat
    scores = qt @ kt.transpose(0, 2, 1) / math.sqrt(d)
    scores = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, scores)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return w @ vt, w
