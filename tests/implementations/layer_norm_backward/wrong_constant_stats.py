"""Treats mean and variance as constants."""

import numpy as np

EXPECT = "depend on x too"


def layer_norm_backward(dout, x, gamma, eps=1e-5):
    C = x.shape[-1]
    if gamma.shape != (C,) or dout.shape != x.shape:
        raise ValueError("gamma must have shape (C,) and dout the shape of x")
    axes = tuple(range(x.ndim - 1))
    mean = x.mean(axis=-1, keepdims=True)
    std = np.sqrt(x.var(axis=-1, keepdims=True) + eps)
    x_hat = (x - mean) / std
    g = dout * gamma
    return g / std, (dout * x_hat).sum(axis=axes), dout.sum(axis=axes)
