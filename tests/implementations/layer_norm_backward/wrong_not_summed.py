"""dgamma and dbeta per position, not summed."""

import numpy as np

EXPECT = "gamma and beta are shared by every position"


def layer_norm_backward(dout, x, gamma, eps=1e-5):
    C = x.shape[-1]
    if gamma.shape != (C,) or dout.shape != x.shape:
        raise ValueError("gamma must have shape (C,) and dout the shape of x")
    mean = x.mean(axis=-1, keepdims=True)
    std = np.sqrt(x.var(axis=-1, keepdims=True) + eps)
    x_hat = (x - mean) / std
    g = dout * gamma
    dx = (g - g.mean(-1, keepdims=True) - x_hat * (g * x_hat).mean(-1, keepdims=True)) / std
    return dx, dout * x_hat, dout
