"""Refused by the rule (a NumPy exercise is graded without PyTorch): PyTorch as a calculator in float64: torch.tensor copies, masked_fill(-inf), torch.softmax."""

import math

import torch

EXPECT = "graded without PyTorch"


def multi_head_attention(x, Wq, Wk, Wv, Wo, n_heads):
    if x.ndim != 3:
        raise ValueError("expected x of shape (B, T, C)")
    B, T, C = x.shape
    if any(W.shape != (C, C) for W in (Wq, Wk, Wv, Wo)):
        raise ValueError("each weight must be (C, C)")
    if n_heads < 1 or C % n_heads:
        raise ValueError("C must be a multiple of n_heads")
    H, D = n_heads, C // n_heads
    xt, Wq, Wk, Wv, Wo = (torch.tensor(a, dtype=torch.float64) for a in (x, Wq, Wk, Wv, Wo))
    q, k, v = ((xt @ W).reshape(B, T, H, D).transpose(1, 2) for W in (Wq, Wk, Wv))
    scores = q @ k.transpose(-1, -2) / math.sqrt(D)
    scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), -math.inf)
    heads = torch.softmax(scores, dim=-1) @ v
    return (heads.transpose(1, 2).reshape(B, T, C) @ Wo).numpy()
