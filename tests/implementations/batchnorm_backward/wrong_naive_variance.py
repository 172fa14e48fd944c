"""Recomputes the variance as mean(x^2) - mean^2: wrong for a feature of mean 1e6."""

import numpy as np

EXPECT = "nearly equal numbers"


def batchnorm_backward(dout, x, gamma, eps=1e-5):
    B = x.shape[0]
    mean = x.mean(axis=0)
    std = np.sqrt((x * x).mean(axis=0) - mean**2 + eps)
    xhat = (x - mean) / std
    dxhat = dout * gamma
    dx = (B * dxhat - dxhat.sum(axis=0) - xhat * (dxhat * xhat).sum(axis=0)) / (B * std)
    return dx, (dout * xhat).sum(axis=0), dout.sum(axis=0)
