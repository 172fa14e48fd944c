"""Differentiates the forward pass with the unbiased variance."""

import numpy as np

EXPECT = "the backward uses the unbiased variance"


def batchnorm_backward(dout, x, gamma, eps=1e-5):
    B = x.shape[0]
    mu = x.mean(axis=0)
    xc = x - mu
    var = (xc**2).sum(axis=0) / (B - 1)
    inv = 1.0 / np.sqrt(var + eps)
    xhat = xc * inv
    dxhat = dout * gamma
    dvar = (dxhat * xc).sum(axis=0) * -0.5 * (var + eps) ** -1.5
    dxc = dxhat * inv + dvar * 2 * xc / (B - 1)
    dx = dxc - dxc.mean(axis=0)
    return dx, (dout * xhat).sum(axis=0), dout.sum(axis=0)
