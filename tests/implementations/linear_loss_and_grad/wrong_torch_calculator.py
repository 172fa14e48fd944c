"""Refused by the rule (a NumPy exercise is graded without PyTorch): PyTorch as a calculator, the gradient written by hand (no autograd)."""

import numpy as np
import torch

EXPECT = "graded without PyTorch"


def linear_loss_and_grad(weights, bias, inputs, targets):
    W, b = torch.tensor(np.asarray(weights, float)), torch.tensor(np.asarray(bias, float))
    x = torch.tensor(np.asarray(inputs, float))
    y = torch.as_tensor(np.asarray(targets)).long()
    z = x @ W + b
    log_probs = z - torch.logsumexp(z, dim=1, keepdim=True)
    dz = log_probs.exp()
    dz[torch.arange(len(y)), y] -= 1
    dz /= len(y)
    loss = -log_probs[torch.arange(len(y)), y].mean()
    return loss.item(), (x.T @ dz).numpy(), dz.sum(0).numpy()
