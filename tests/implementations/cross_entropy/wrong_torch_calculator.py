"""Refused by the rule (a NumPy exercise is graded without PyTorch): PyTorch as a calculator: logsumexp and indexing, no softmax or loss function of PyTorch's."""

import numpy as np
import torch

EXPECT = "graded without PyTorch"


def cross_entropy(logits, targets):
    if np.ndim(logits) != 2 or np.ndim(targets) != 1 or len(logits) != len(targets):
        raise ValueError("logits must be (B, V) and targets (B,)")
    z = torch.tensor(np.asarray(logits, dtype=np.float64))
    t = torch.as_tensor(np.asarray(targets, dtype=np.int64))
    return (torch.logsumexp(z, dim=1) - z[torch.arange(len(t)), t]).mean().item()
