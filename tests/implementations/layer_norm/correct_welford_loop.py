"""Welford's running mean and variance, one row at a time in Python floats."""

import math

import numpy as np

EXPECT = "pass"


def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    C = x.shape[-1]
    if np.shape(gamma) != (C,) or np.shape(beta) != (C,):
        raise ValueError("gamma and beta must have shape (C,)")
    rows = x.reshape(-1, C)
    out = np.empty_like(rows)
    for i, row in enumerate(rows):
        mean = m2 = 0.0
        for n, value in enumerate(row.tolist(), start=1):
            delta = value - mean
            mean += delta / n
            m2 += delta * (value - mean)
        scale = 1.0 / math.sqrt(m2 / C + eps)
        out[i] = [(value - mean) * scale for value in row.tolist()]
    return out.reshape(x.shape) * gamma + beta
