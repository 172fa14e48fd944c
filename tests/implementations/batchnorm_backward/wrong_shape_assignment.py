"""Flattens with `a.shape = ...` (a view, never a copy): fails on non-contiguous input."""

import numpy as np

EXPECT = "non-contiguous"


def batchnorm_backward(dout, x, gamma, eps=1e-5):
    B, D = x.shape
    xt, dt = x.view(), dout.view()
    xt.shape, dt.shape = (B * D,), (B * D,)  # flat, row-major: raises unless contiguous
    xt, dt = xt.reshape(B, D), dt.reshape(B, D)
    mean, var = xt.mean(axis=0), xt.var(axis=0)
    std = np.sqrt(var + eps)
    xhat = (xt - mean) / std
    g = dt * gamma
    dx = (g - g.mean(0) - xhat * (g * xhat).mean(0)) / std
    return dx, (dt * xhat).sum(0), dt.sum(0)
