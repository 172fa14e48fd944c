"""The draft with two bugs fixed: the heads are still merged by a plain reshape."""

import math

import numpy as np

EXPECT = "merged in the wrong order"


def multi_head_attention(
    x: np.ndarray, Wq: np.ndarray, Wk: np.ndarray, Wv: np.ndarray, Wo: np.ndarray, n_heads: int
) -> np.ndarray:
    if x.ndim != 3:
        raise ValueError(f"expected x of shape (B, T, C), got {x.shape}")
    B, T, C = x.shape
    if any(W.shape != (C, C) for W in (Wq, Wk, Wv, Wo)):
        raise ValueError(f"each weight must be (C, C) = ({C}, {C})")
    if n_heads < 1 or C % n_heads:
        raise ValueError(f"C = {C} must be a multiple of n_heads = {n_heads}")
    D = C // n_heads
    q, k, v = (np.reshape(x @ W, (B, T, n_heads, D)).transpose(0, 2, 1, 3) for W in (Wq, Wk, Wv))
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(D)
    scores = np.where(np.tri(T, dtype=bool), scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return (weights @ v).reshape(B, T, C) @ Wo
