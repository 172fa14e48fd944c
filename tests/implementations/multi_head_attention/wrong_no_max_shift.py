"""No max shift: exp overflows once a head's scores reach the hundreds."""

import math

import numpy as np

EXPECT = "not stable row by row"


def multi_head_attention(x, Wq, Wk, Wv, Wo, n_heads):
    if x.ndim != 3:
        raise ValueError("expected x of shape (B, T, C)")
    B, T, C = x.shape
    if any(W.shape != (C, C) for W in (Wq, Wk, Wv, Wo)):
        raise ValueError("each weight must be (C, C)")
    if n_heads < 1 or C % n_heads:
        raise ValueError("C must be a multiple of n_heads")
    H, D = n_heads, C // n_heads

    def split(a):
        return a.reshape(B, T, H, D).transpose(0, 2, 1, 3)

    q, k, v = split(x @ Wq), split(x @ Wk), split(x @ Wv)
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(D)
    scores = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, scores)
    w = np.exp(scores)
    w = w / w.sum(axis=-1, keepdims=True)
    return (w @ v).transpose(0, 2, 1, 3).reshape(B, T, C) @ Wo
