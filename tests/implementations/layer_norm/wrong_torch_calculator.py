"""Refused by the rule (a NumPy exercise is graded without PyTorch): PyTorch as a calculator in float64: torch.var_mean (biased), rsqrt."""

import numpy as np
import torch

EXPECT = "graded without PyTorch"


def layer_norm(x, gamma, beta, eps=1e-5):
    C = np.shape(x)[-1]
    if np.shape(gamma) != (C,) or np.shape(beta) != (C,):
        raise ValueError("gamma and beta must have shape (C,)")
    xt = torch.tensor(x, dtype=torch.float64)
    var, mean = torch.var_mean(xt, dim=-1, keepdim=True, correction=0)
    y = (xt - mean) * torch.rsqrt(var + eps)
    return y.numpy() * gamma + beta
