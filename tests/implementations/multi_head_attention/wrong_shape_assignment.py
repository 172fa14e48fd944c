"""Rows taken with `rows.shape = (B * T, C)` (a view, never a copy): fails on non-contiguous x."""

import math

import numpy as np

EXPECT = "non-contiguous"


def multi_head_attention(x, Wq, Wk, Wv, Wo, n_heads):
    if x.ndim != 3:
        raise ValueError("expected x of shape (B, T, C)")
    B, T, C = x.shape
    if any(W.shape != (C, C) for W in (Wq, Wk, Wv, Wo)):
        raise ValueError("each weight must be (C, C)")
    if n_heads < 1 or C % n_heads:
        raise ValueError("C must be a multiple of n_heads")
    H, D = n_heads, C // n_heads
    rows = x.view()
    rows.shape = (B * T, C)  # raises unless x is contiguous
    q, k, v = ((rows @ W).reshape(B, T, H, D).transpose(0, 2, 1, 3) for W in (Wq, Wk, Wv))
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(D)
    scores = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, scores)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    heads = weights @ v
    return heads.transpose(0, 2, 1, 3).reshape(B, T, C) @ Wo
