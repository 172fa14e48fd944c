"""float32 where it loses nothing (the 0/1 mask, the scale of a small integer), float64 for every value."""

import numpy as np

EXPECT = "pass"


def causal_attention(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    if q.ndim != 3 or q.shape != k.shape or v.ndim != 3 or v.shape[:2] != q.shape[:2]:
        raise ValueError("bad shapes")
    T = q.shape[1]
    allowed = np.tril(np.ones((T, T), dtype=np.float32))  # exactly 0 and 1 in float32
    scale = np.float32(q.shape[-1])  # an integer: exact in float32
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(scale.astype(np.float64))
    scores = np.where(allowed == 1, scores, -np.inf)
    w = np.exp(scores - scores.max(axis=2, keepdims=True))
    w /= w.sum(axis=2, keepdims=True)
    return w @ v, w
