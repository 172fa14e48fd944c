"""PyTorch as a calculator, but .view on torch.from_numpy: fails on non-contiguous input."""

import math

import torch

EXPECT = "non-contiguous"


def causal_attention(q, k, v):
    if q.ndim != 3 or k.shape != q.shape or v.ndim != 3 or v.shape[:2] != q.shape[:2]:
        raise ValueError("expected q, k (B, T, d) and v (B, T, d_v)")
    B, T, d = q.shape
    qt, kt, vt = (torch.from_numpy(a).view(B * T, -1) for a in (q, k, v))  # rows: (b, t)
    scores = (qt.view(B, T, d) @ kt.view(B, T, d).transpose(1, 2)) / math.sqrt(d)
    scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), -math.inf)
    w = torch.softmax(scores, dim=-1)
    return (w @ vt.view(B, T, -1)).numpy(), w.numpy()
