"""The staged backward pass with a default eps of 1e-8 (Adam's habit) instead of the contract's
1e-5: the difference is tiny on rows of unit spread, several percent on rows of spread 0.01."""

import numpy as np

EXPECT = "eps"


def layer_norm_backward(dout, x, gamma, eps=1e-8):
    C = x.shape[-1]
    if gamma.shape != (C,) or dout.shape != x.shape:
        raise ValueError("bad shapes")
    flat_x, flat_d = x.reshape(-1, C), dout.reshape(-1, C)
    mu = flat_x.mean(1, keepdims=True)
    xc = flat_x - mu
    var = (xc**2).mean(1, keepdims=True)
    inv = 1 / np.sqrt(var + eps)
    x_hat = xc * inv
    dx_hat = flat_d * gamma
    dinv = (dx_hat * xc).sum(1, keepdims=True)
    dvar = dinv * -0.5 * (var + eps) ** -1.5
    dxc = dx_hat * inv + dvar * 2 * xc / C
    dmu = -dxc.sum(1, keepdims=True)
    dx = dxc + dmu / C
    return dx.reshape(x.shape), (flat_d * x_hat).sum(0), flat_d.sum(0)
