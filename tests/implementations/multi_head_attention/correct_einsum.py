"""einsum with named axes and a boolean causal mask."""

import numpy as np

EXPECT = "pass"


def multi_head_attention(x, Wq, Wk, Wv, Wo, n_heads):
    if x.ndim != 3 or c_mismatch(x, Wq, Wk, Wv, Wo) or n_heads < 1 or x.shape[2] % n_heads:
        raise ValueError("expected x (B, T, C), weights (C, C), C a multiple of n_heads")
    B, T, C = x.shape
    D = C // n_heads
    q, k, v = (np.einsum("btc,cd->btd", x, W).reshape(B, T, n_heads, D) for W in (Wq, Wk, Wv))
    s = np.einsum("bthd,bshd->bhts", q, k) / np.sqrt(D)
    s[..., ~np.tri(T, dtype=bool)] = -np.inf
    w = np.exp(s - s.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    return np.einsum("bhts,bshd->bthd", w, v).reshape(B, T, C) @ Wo


def c_mismatch(x, *weights):
    return any(W.shape != (x.shape[2], x.shape[2]) for W in weights)
