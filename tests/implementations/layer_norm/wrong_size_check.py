"""Compares sizes, not shapes: a gamma of shape (1, C) or (C, 1) gets through."""

import numpy as np

EXPECT = "gamma and beta must have shape (C,)"


def layer_norm(x, gamma, beta, eps=1e-5):
    C = x.shape[-1]
    if gamma.size != C or beta.size != C:
        raise ValueError("gamma and beta must have C entries")
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta
