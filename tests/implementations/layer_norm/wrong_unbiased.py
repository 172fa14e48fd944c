"""Unbiased variance (ddof=1)."""

import numpy as np

EXPECT = "divided by C or by C - 1"


def layer_norm(x, gamma, beta, eps=1e-5):
    C = x.shape[-1]
    if gamma.shape != (C,) or beta.shape != (C,):
        raise ValueError("gamma and beta must have shape (C,)")
    mean = x.mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=-1, ddof=1, keepdims=True) + eps) * gamma + beta
