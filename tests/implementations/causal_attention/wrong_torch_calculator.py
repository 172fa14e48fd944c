"""Refused by the rule (a NumPy exercise is graded without PyTorch): PyTorch as a calculator in float64: masked_fill with -inf, torch.softmax, copies via torch.tensor."""

import math

import numpy as np
import torch

EXPECT = "graded without PyTorch"


def causal_attention(q, k, v):
    q, k, v = (np.asarray(a) for a in (q, k, v))
    if q.ndim != 3 or k.shape != q.shape or v.ndim != 3 or v.shape[:2] != q.shape[:2]:
        raise ValueError("expected q, k (B, T, d) and v (B, T, d_v)")
    qt, kt, vt = (torch.tensor(a, dtype=torch.float64) for a in (q, k, v))
    T, d = q.shape[1], q.shape[2]
    scores = qt @ kt.transpose(1, 2) / math.sqrt(d)
    scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), -math.inf)
    w = torch.softmax(scores, dim=-1)
    return (w @ vt).numpy(), w.numpy()
