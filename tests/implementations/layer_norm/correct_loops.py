"""Row by row over a 2-d view."""

import math

import numpy as np

EXPECT = "pass"


def layer_norm(x, gamma, beta, eps=1e-5):
    C = x.shape[-1]
    if np.shape(gamma) != (C,) or np.shape(beta) != (C,):
        raise ValueError("gamma and beta must have shape (C,)")
    rows = x.reshape(-1, C)
    out = np.empty(rows.shape)
    for i, row in enumerate(rows):
        mean = sum(row) / C
        var = sum((r - mean) ** 2 for r in row) / C
        out[i] = [(r - mean) / math.sqrt(var + eps) * g + b for r, g, b in zip(row, gamma, beta)]
    return out.reshape(x.shape)
