"""Validates gamma and beta only for a 2-d x: a (B, T, C) input is never checked."""

import numpy as np

EXPECT = "gamma and beta must have shape (C,)"


def layer_norm(x, gamma, beta, eps=1e-5):
    if x.ndim == 2 and (gamma.shape != (x.shape[1],) or beta.shape != (x.shape[1],)):
        raise ValueError("gamma and beta must have shape (C,)")
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta
