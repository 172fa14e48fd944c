"""Validates gamma but not beta: a beta of shape (1,) broadcasts silently."""

import numpy as np

EXPECT = "gamma and beta must have shape (C,)"


def layer_norm(x, gamma, beta, eps=1e-5):
    if gamma.shape != (x.shape[-1],):
        raise ValueError("gamma must have shape (C,)")
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta
