"""Normalises in float32: fails the rows of mean 1e6 times their spread, which float32 cannot hold."""

import numpy as np

EXPECT = "float64"


def layer_norm(x, gamma, beta, eps=1e-5):
    C = x.shape[-1]
    if gamma.shape != (C,) or beta.shape != (C,):
        raise ValueError("gamma and beta must have shape (C,)")
    x32 = x.astype(np.float32)
    mean = x32.mean(axis=-1, keepdims=True)
    var = ((x32 - mean) ** 2).mean(axis=-1, keepdims=True)
    y = (x32 - mean) / np.sqrt(var + np.float32(eps))
    return y.astype(np.float64) * gamma + beta
