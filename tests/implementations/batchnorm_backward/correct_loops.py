"""Feature by feature in Python floats, the three paths added one by one."""

import math

import numpy as np

EXPECT = "pass"


def batchnorm_backward(dout, x, gamma, eps=1e-5):
    B, D = np.shape(x)
    dx, dgamma, dbeta = np.zeros((B, D)), np.zeros(D), np.zeros(D)
    for j in range(D):
        col, d = [float(v) for v in x[:, j]], [float(v) for v in dout[:, j]]
        mu = math.fsum(col) / B
        var = math.fsum((v - mu) ** 2 for v in col) / B
        s = math.sqrt(var + eps)
        xhat = [(v - mu) / s for v in col]
        g = [di * float(gamma[j]) for di in d]
        sum_g, sum_gx = math.fsum(g), math.fsum(gi * xi for gi, xi in zip(g, xhat, strict=True))
        for b in range(B):
            dx[b, j] = (g[b] - sum_g / B - xhat[b] * sum_gx / B) / s
        dgamma[j] = math.fsum(di * xi for di, xi in zip(d, xhat, strict=True))
        dbeta[j] = math.fsum(d)
    return dx, dgamma, dbeta
