"""The compact formula with eps defaulting to 1e-3 instead of 1e-5."""

import numpy as np

EXPECT = "its default is 1e-5"


def batchnorm_backward(dout, x, gamma, eps=1e-3):
    B = x.shape[0]
    std = np.sqrt(x.var(axis=0) + eps)
    xhat = (x - x.mean(axis=0)) / std
    dxhat = dout * gamma
    dx = (B * dxhat - dxhat.sum(axis=0) - xhat * (dxhat * xhat).sum(axis=0)) / (B * std)
    return dx, (dout * xhat).sum(axis=0), dout.sum(axis=0)
