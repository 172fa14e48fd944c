"""dgamma from the raw input instead of the normalised one."""

import numpy as np

EXPECT = "dgamma uses x"


def batchnorm_backward(dout, x, gamma, eps=1e-5):
    B = x.shape[0]
    std = np.sqrt(x.var(axis=0) + eps)
    xhat = (x - x.mean(axis=0)) / std
    dxhat = dout * gamma
    dx = (B * dxhat - dxhat.sum(axis=0) - xhat * (dxhat * xhat).sum(axis=0)) / (B * std)
    return dx, (dout * x).sum(axis=0), dout.sum(axis=0)
