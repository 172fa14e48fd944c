"""Recomputes the variance as mean(x^2) - mean^2: every digit lost in a row of mean 1e6."""

import numpy as np

EXPECT = "catastrophic cancellation"


def layer_norm_backward(dout, x, gamma, eps=1e-5):
    C = x.shape[-1]
    if gamma.shape != (C,) or dout.shape != x.shape:
        raise ValueError("gamma must have shape (C,) and dout the shape of x")
    axes = tuple(range(x.ndim - 1))
    mean = x.mean(axis=-1, keepdims=True)
    std = np.sqrt((x**2).mean(axis=-1, keepdims=True) - mean**2 + eps)
    x_hat = (x - mean) / std
    g = dout * gamma
    dx = (g - g.mean(-1, keepdims=True) - x_hat * (g * x_hat).mean(-1, keepdims=True)) / std
    return dx, (dout * x_hat).sum(axis=axes), dout.sum(axis=axes)
