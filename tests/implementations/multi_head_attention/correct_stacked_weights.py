"""One einsum for the three projections of every head, heads kept as an axis throughout."""

import numpy as np

EXPECT = "pass"


def multi_head_attention(x, Wq, Wk, Wv, Wo, n_heads):
    if np.ndim(x) != 3:
        raise ValueError("expected x of shape (B, T, C)")
    B, T, C = x.shape
    for W in (Wq, Wk, Wv, Wo):
        if np.shape(W) != (C, C):
            raise ValueError("each weight must be (C, C)")
    if not (isinstance(n_heads, int) and n_heads >= 1 and C % n_heads == 0):
        raise ValueError("C must be a multiple of n_heads >= 1")
    H, D = n_heads, C // n_heads
    W = np.stack([Wq, Wk, Wv]).reshape(3, C, H, D)  # head h: columns h*D:(h+1)*D
    q, k, v = np.einsum("btc,schd->sbhtd", x, W)  # each (B, H, T, D)
    scores = np.einsum("bhtd,bhjd->bhtj", q, k) / np.sqrt(D)
    scores[..., np.triu_indices(T, 1)[0], np.triu_indices(T, 1)[1]] = -np.inf
    scores -= scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=-1, keepdims=True)
    heads = np.einsum("bhtj,bhjd->bthd", w, v).reshape(B, T, C)
    return heads @ Wo
