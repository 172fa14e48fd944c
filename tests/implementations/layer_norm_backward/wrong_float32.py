"""The right formula in float32: fails the rows of mean 1e6 times their spread (float32 cannot hold them)."""

import numpy as np

EXPECT = "float64"


def layer_norm_backward(dout, x, gamma, eps=1e-5):
    C = x.shape[-1]
    if gamma.shape != (C,) or dout.shape != x.shape:
        raise ValueError("gamma must have shape (C,) and dout the shape of x")
    dout, x, gamma = (a.astype(np.float32) for a in (dout, x, gamma))
    axes = tuple(range(x.ndim - 1))
    mean = x.mean(axis=-1, keepdims=True)
    std = np.sqrt(((x - mean) ** 2).mean(axis=-1, keepdims=True) + np.float32(eps))
    x_hat = (x - mean) / std
    g = dout * gamma
    dx = (g - g.mean(-1, keepdims=True) - x_hat * (g * x_hat).mean(-1, keepdims=True)) / std
    return tuple(
        a.astype(np.float64) for a in (dx, (dout * x_hat).sum(axis=axes), dout.sum(axis=axes))
    )
