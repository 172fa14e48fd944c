"""Uses x @ W.T (the nn.Linear habit)."""

import math

import numpy as np

EXPECT = "projections are transposed"


def multi_head_attention(x, Wq, Wk, Wv, Wo, n_heads):
    B, T, C = x.shape
    if any(W.shape != (C, C) for W in (Wq, Wk, Wv, Wo)) or C % n_heads:
        raise ValueError("each weight must be (C, C) and C a multiple of n_heads")
    H, D = n_heads, C // n_heads

    def split(a):
        return a.reshape(B, T, H, D).transpose(0, 2, 1, 3)

    q, k, v = split(x @ Wq.T), split(x @ Wk.T), split(x @ Wv.T)
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(D)
    scores = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, scores)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    out = w @ v
    return out.transpose(0, 2, 1, 3).reshape(B, T, C) @ Wo.T
