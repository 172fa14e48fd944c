"""The debug exercise's draft with its three bugs fixed."""

import math

import numpy as np

EXPECT = "pass"


def causal_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if q.ndim != 3 or k.shape != q.shape or v.ndim != 3 or v.shape[:2] != q.shape[:2]:
        raise ValueError(
            f"expected q, k of the same shape (B, T, d) and v of shape (B, T, d_v); "
            f"got {q.shape}, {k.shape}, {v.shape}"
        )
    _, T, d = q.shape
    scores = q @ k.transpose(0, 2, 1) / math.sqrt(d)  # (B, T, T): row t = query t, column j = key j
    future = np.triu(np.ones((T, T), dtype=bool), k=1)
    scores = np.where(future, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)  # stable: the largest score is 0
    weights = np.where(future, 0.0, np.exp(scores))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ v, weights
