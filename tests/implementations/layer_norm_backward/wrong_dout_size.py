"""Checks that dout has as many entries as x, not its shape: a reshaped dout gets through."""

import numpy as np

EXPECT = "dout must have the shape of x"


def layer_norm_backward(dout, x, gamma, eps=1e-5):
    C = x.shape[-1]
    if gamma.shape != (C,) or dout.size != x.size:
        raise ValueError("gamma must have shape (C,) and dout as many entries as x")
    axes = tuple(range(x.ndim - 1))
    mean = x.mean(axis=-1, keepdims=True)
    std = np.sqrt(((x - mean) ** 2).mean(axis=-1, keepdims=True) + eps)
    x_hat = (x - mean) / std
    g = dout * gamma
    dx = (g - g.mean(-1, keepdims=True) - x_hat * (g * x_hat).mean(-1, keepdims=True)) / std
    return dx, (dout * x_hat).sum(axis=axes), dout.sum(axis=axes)
