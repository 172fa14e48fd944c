"""Multiplies dout by gamma in place to save memory: the caller's dout is changed."""

import numpy as np

EXPECT = "dout was modified"


def batchnorm_backward(dout, x, gamma, eps=1e-5):
    B = x.shape[0]
    std = np.sqrt(x.var(axis=0) + eps)
    xhat = (x - x.mean(axis=0)) / std
    dbeta, dgamma = dout.sum(axis=0), (dout * xhat).sum(axis=0)
    dout *= gamma  # now dxhat
    dx = (B * dout - dout.sum(axis=0) - xhat * (dout * xhat).sum(axis=0)) / (B * std)
    return dx, dgamma, dbeta
