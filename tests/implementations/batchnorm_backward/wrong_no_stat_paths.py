"""Treats the mean and variance as constants."""

import numpy as np

EXPECT = "paths through the batch mean and variance"


def batchnorm_backward(dout, x, gamma, eps=1e-5):
    std = np.sqrt(x.var(axis=0) + eps)
    xhat = (x - x.mean(axis=0)) / std
    return dout * gamma / std, (dout * xhat).sum(axis=0), dout.sum(axis=0)
