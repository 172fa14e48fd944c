"""einsum in float32 for every product, gradients handed back as float64."""

import math

import numpy as np

EXPECT = "pass"


def causal_attention_backward(q, k, v, dout):
    if q.ndim != 3 or k.shape != q.shape or v.ndim != 3 or v.shape[:2] != q.shape[:2]:
        raise ValueError("expected q, k (B, T, d), v and dout (B, T, d_v)")
    if dout.shape != v.shape:
        raise ValueError("expected dout of v's shape")
    q, k, v, dout = (a.astype(np.float32) for a in (q, k, v, dout))
    T, d = q.shape[1], q.shape[2]
    scores = np.einsum("btd,bsd->bts", q, k) / np.float32(math.sqrt(d))
    scores = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, scores)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    dw = np.einsum("bte,bse->bts", dout, v)
    ds = w * (dw - (dw * w).sum(axis=-1, keepdims=True)) / np.float32(math.sqrt(d))
    dq = np.einsum("bts,bsd->btd", ds, k)
    dk = np.einsum("bts,btd->bsd", ds, q)
    dv = np.einsum("bts,bte->bse", w, dout)
    return dq.astype(np.float64), dk.astype(np.float64), dv.astype(np.float64)
