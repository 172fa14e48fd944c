"""einsum, a large negative fill instead of -inf, float64 throughout."""

import numpy as np

EXPECT = "pass"


def causal_attention(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    if q.ndim != 3 or q.shape != k.shape or v.ndim != 3 or v.shape[:2] != q.shape[:2]:
        raise ValueError("bad shapes")
    T = q.shape[1]
    scores = np.einsum("btd,bsd->bts", q, k) * q.shape[-1] ** -0.5
    scores = np.where(np.tri(T, dtype=bool), scores, -1e300)
    scores -= scores.max(axis=2, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=2, keepdims=True)
    return np.einsum("bts,bse->bte", w, v), w
