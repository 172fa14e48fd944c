"""Refused by the rule (a NumPy exercise is graded without PyTorch): PyTorch as a calculator in float32: exp, topk and sum on tensors (no torch.softmax)."""

import numpy as np
import torch

EXPECT = "graded without PyTorch"


def top_k_probs(logits, k, temperature=1.0):
    if k < 1:
        raise ValueError("k must be at least 1")
    if not temperature > 0:
        raise ValueError("temperature must be > 0")
    z = torch.tensor(np.asarray(logits, dtype=np.float32)) / temperature
    e = torch.exp(z - z.max())
    probs = e / e.sum()
    top = torch.topk(probs, min(k, len(probs))).indices
    kept = torch.zeros_like(probs)
    kept[top] = probs[top]
    return (kept / kept.sum()).numpy().astype(np.float64)
