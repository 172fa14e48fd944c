"""Keeps the variance path, drops the mean path."""

import numpy as np

EXPECT = "path through the mean"


def batchnorm_backward(dout, x, gamma, eps=1e-5):
    std = np.sqrt(x.var(axis=0) + eps)
    xhat = (x - x.mean(axis=0)) / std
    dxhat = dout * gamma
    dx = (dxhat - xhat * (dxhat * xhat).mean(axis=0)) / std
    return dx, (dout * xhat).sum(axis=0), dout.sum(axis=0)
