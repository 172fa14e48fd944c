"""Refused by the rule (a NumPy exercise is graded without PyTorch): PyTorch as a calculator in float32 (max, exp, sum, log on tensors): float32's precision is accepted."""

import numpy as np
import torch

EXPECT = "graded without PyTorch"


def cross_entropy(logits, targets):
    if logits.ndim != 2 or targets.ndim != 1 or logits.shape[0] != targets.shape[0]:
        raise ValueError("expected logits (B, V) and targets (B,)")
    z = torch.tensor(np.asarray(logits, dtype=np.float32))
    shifted = z - z.max(dim=1, keepdim=True).values
    log_probs = shifted - torch.log(torch.exp(shifted).sum(dim=1, keepdim=True))
    picked = log_probs[
        torch.arange(len(targets)), torch.tensor(np.asarray(targets, dtype=np.int64))
    ]
    return float(-picked.mean())
