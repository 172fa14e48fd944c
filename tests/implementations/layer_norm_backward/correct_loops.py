"""Row by row in Python floats, through the mean and the variance explicitly."""

import math

import numpy as np

EXPECT = "pass"


def layer_norm_backward(dout, x, gamma, eps=1e-5):
    x, dout, gamma = (np.asarray(a, dtype=np.float64) for a in (x, dout, gamma))
    C = x.shape[-1]
    if gamma.shape != (C,) or dout.shape != x.shape:
        raise ValueError("gamma must have shape (C,) and dout the shape of x")
    xs, ds = x.reshape(-1, C), dout.reshape(-1, C)
    dx = np.zeros_like(xs)
    dgamma, dbeta = np.zeros(C), np.zeros(C)
    for r in range(len(xs)):
        row, d = xs[r].tolist(), ds[r].tolist()
        mean = math.fsum(row) / C
        var = math.fsum((v - mean) ** 2 for v in row) / C
        std = math.sqrt(var + eps)
        xhat = [(v - mean) / std for v in row]
        g = [d[j] * gamma[j] for j in range(C)]
        dvar = math.fsum(g[j] * (row[j] - mean) for j in range(C)) * -0.5 * std**-3
        dmean = -math.fsum(g) / std  # the variance's own path through the mean sums to zero
        for j in range(C):
            dx[r, j] = g[j] / std + dvar * 2 * (row[j] - mean) / C + dmean / C
            dgamma[j] += d[j] * xhat[j]
            dbeta[j] += d[j]
    return dx.reshape(x.shape), dgamma, dbeta
