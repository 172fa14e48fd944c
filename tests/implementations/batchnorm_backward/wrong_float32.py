"""The compact formula in float32: fails the feature of mean 1e6 (float32 cannot hold it)."""

import numpy as np

EXPECT = "float64"


def batchnorm_backward(dout, x, gamma, eps=1e-5):
    dout, x, gamma = (a.astype(np.float32) for a in (dout, x, gamma))
    B = x.shape[0]
    std = np.sqrt(x.var(axis=0) + np.float32(eps))
    xhat = (x - x.mean(axis=0)) / std
    dxhat = dout * gamma
    dx = (B * dxhat - dxhat.sum(axis=0) - xhat * (dxhat * xhat).sum(axis=0)) / (B * std)
    return tuple(a.astype(np.float64) for a in (dx, (dout * xhat).sum(axis=0), dout.sum(axis=0)))
