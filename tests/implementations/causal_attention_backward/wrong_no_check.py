"""Accepts 2-d inputs silently (broadcasts as one sequence)."""

import math

import numpy as np

EXPECT = "expected ValueError"


def causal_attention_backward(q, k, v, dout):
    q, k, v, dout = (np.atleast_3d(a) if a.ndim == 3 else a[None] for a in (q, k, v, dout))
    T, d = q.shape[1], q.shape[2]
    s = q @ k.transpose(0, 2, 1) / math.sqrt(d)
    s = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, s)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    dw = dout @ v.transpose(0, 2, 1)
    ds = w * (dw - (dw * w).sum(axis=-1, keepdims=True)) / math.sqrt(d)
    return ds @ k, ds.transpose(0, 2, 1) @ q, w.transpose(0, 2, 1) @ dout
