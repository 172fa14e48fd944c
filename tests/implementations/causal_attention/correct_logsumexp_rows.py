"""Weights as exp(score - logsumexp) per row with np.logaddexp.reduce, over the past only."""

import numpy as np

EXPECT = "pass"


def causal_attention(q, k, v):
    if q.ndim != 3 or k.shape != q.shape or v.ndim != 3 or v.shape[:2] != q.shape[:2]:
        raise ValueError("expected q, k (B, T, d) and v (B, T, d_v)")
    B, T, d = q.shape
    weights = np.zeros((B, T, T))
    for t in range(T):
        scores = np.einsum("bd,bjd->bj", q[:, t], k[:, : t + 1]) / np.sqrt(d)  # (B, t + 1)
        log_z = np.logaddexp.reduce(scores, axis=1, keepdims=True)
        weights[:, t, : t + 1] = np.exp(scores - log_z)
    return np.einsum("btj,bje->bte", weights, v), weights
