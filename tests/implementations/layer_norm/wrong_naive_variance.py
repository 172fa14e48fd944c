"""Variance as mean(x^2) - mean^2."""

import numpy as np

EXPECT = "catastrophic cancellation"


def layer_norm(x, gamma, beta, eps=1e-5):
    C = x.shape[-1]
    if gamma.shape != (C,) or beta.shape != (C,):
        raise ValueError("gamma and beta must have shape (C,)")
    mean = x.mean(axis=-1, keepdims=True)
    var = (x**2).mean(axis=-1, keepdims=True) - mean**2
    return (x - mean) / np.sqrt(var + eps) * gamma + beta
