"""dv = W @ dout."""

import math

import numpy as np

EXPECT = "the sum runs over the keys instead"


def causal_attention_backward(q, k, v, dout):
    if q.ndim != 3:
        raise ValueError("expected q, k (B, T, d), v and dout (B, T, d_v)")
    T, d = q.shape[1], q.shape[2]
    s = q @ k.transpose(0, 2, 1) / math.sqrt(d)
    s = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, s)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    dw = dout @ v.transpose(0, 2, 1)
    ds = w * (dw - (dw * w).sum(axis=-1, keepdims=True)) / math.sqrt(d)
    return ds @ k, ds.transpose(0, 2, 1) @ q, w @ dout
