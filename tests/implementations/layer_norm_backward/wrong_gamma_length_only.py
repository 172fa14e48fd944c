"""Checks len(gamma) only: a gamma of shape (4, 1) or (1, 4) broadcasts silently."""

import numpy as np

EXPECT = "gamma must have shape (C,)"


def layer_norm_backward(dout, x, gamma, eps=1e-5):
    C = x.shape[-1]
    if np.size(gamma) != C or dout.shape != x.shape:
        raise ValueError("gamma must have C entries and dout the shape of x")
    axes = tuple(range(x.ndim - 1))
    mean = x.mean(axis=-1, keepdims=True)
    std = np.sqrt(((x - mean) ** 2).mean(axis=-1, keepdims=True) + eps)
    x_hat = (x - mean) / std
    g = dout * gamma
    dx = (g - g.mean(-1, keepdims=True) - x_hat * (g * x_hat).mean(-1, keepdims=True)) / std
    return dx, (dout * x_hat).sum(axis=axes), dout.sum(axis=axes)
