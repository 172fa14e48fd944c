"""Staged through the graph, node by node, as in CS231n."""

import numpy as np

EXPECT = "pass"


def batchnorm_backward(dout, x, gamma, eps=1e-5):
    B = x.shape[0]
    mu = x.mean(axis=0)
    xc = x - mu
    var = (xc**2).mean(axis=0)
    inv = 1.0 / np.sqrt(var + eps)
    xhat = xc * inv
    dbeta = dout.sum(axis=0)
    dgamma = (dout * xhat).sum(axis=0)
    dxhat = dout * gamma
    dinv = (dxhat * xc).sum(axis=0)
    dvar = dinv * -0.5 * (var + eps) ** -1.5
    dxc = dxhat * inv + dvar * 2 * xc / B
    dmu = -dxc.sum(axis=0)
    dx = dxc + dmu / B
    return dx, dgamma, dbeta
