"""PyTorch as a calculator, but .view(-1) on torch.from_numpy: fails on non-contiguous input."""

import torch

EXPECT = "non-contiguous"


def batchnorm_backward(dout, x, gamma, eps=1e-5):
    B, D = x.shape
    xt, dt = torch.from_numpy(x).view(-1), torch.from_numpy(dout).view(-1)  # flat, row-major
    xt, dt, gt = xt.view(B, D), dt.view(B, D), torch.from_numpy(gamma)
    var, mean = torch.var_mean(xt, dim=0, correction=0)
    std = torch.sqrt(var + eps)
    xhat = (xt - mean) / std
    g = dt * gt
    dx = (g - g.mean(0) - xhat * (g * xhat).mean(0)) / std
    return dx.numpy(), (dt * xhat).sum(0).numpy(), dt.sum(0).numpy()
