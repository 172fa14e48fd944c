"""Refused by the rule (a NumPy exercise is graded without PyTorch): The mean-form formula with torch tensors in float64 (no autograd), copies via torch.tensor."""

import torch

EXPECT = "graded without PyTorch"


def batchnorm_backward(dout, x, gamma, eps=1e-5):
    xt, dt, gt = (torch.tensor(a, dtype=torch.float64) for a in (x, dout, gamma))
    var, mean = torch.var_mean(xt, dim=0, correction=0)
    inv = torch.rsqrt(var + eps)
    xhat = (xt - mean) * inv
    g = dt * gt
    dx = inv * (g - g.mean(0) - xhat * (g * xhat).mean(0))
    return dx.numpy(), (dt * xhat).sum(0).numpy(), dt.sum(0).numpy()
