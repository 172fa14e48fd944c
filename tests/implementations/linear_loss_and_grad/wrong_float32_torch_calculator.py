"""Refused by the rule (a NumPy exercise is graded without PyTorch): PyTorch as a calculator in float32 (matmul, exp, sum by hand; no autograd, no F.cross_entropy)."""

import numpy as np
import torch

EXPECT = "graded without PyTorch"


def linear_loss_and_grad(weights, bias, inputs, targets):
    W, b, x = (torch.tensor(np.asarray(a, dtype=np.float32)) for a in (weights, bias, inputs))
    y = torch.tensor(np.asarray(targets, dtype=np.int64))
    B = x.shape[0]
    logits = x @ W + b
    shifted = logits - logits.max(dim=1, keepdim=True).values
    log_probs = shifted - torch.log(torch.exp(shifted).sum(dim=1, keepdim=True))
    loss = float(-log_probs[torch.arange(B), y].mean())
    dz = torch.exp(log_probs)
    dz[torch.arange(B), y] -= 1
    dz /= B
    return loss, (x.T @ dz).numpy().astype(np.float64), dz.sum(dim=0).numpy().astype(np.float64)
