"""Returns per-example dgamma and dbeta."""

import numpy as np

EXPECT = "one gamma and beta serve every row"


def batchnorm_backward(dout, x, gamma, eps=1e-5):
    B = x.shape[0]
    std = np.sqrt(x.var(axis=0) + eps)
    xhat = (x - x.mean(axis=0)) / std
    dxhat = dout * gamma
    dx = (B * dxhat - dxhat.sum(axis=0) - xhat * (dxhat * xhat).sum(axis=0)) / (B * std)
    return dx, dout * xhat, dout
