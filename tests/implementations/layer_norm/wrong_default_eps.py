"""The right formula with a default eps of 1e-8 (Adam's habit) instead of the contract's 1e-5: the
difference is tiny on rows of unit spread, about 5 % on rows of spread 0.01."""

import numpy as np

EXPECT = "eps"


def layer_norm(x, gamma, beta, eps=1e-8):
    C = x.shape[-1]
    if gamma.shape != (C,) or beta.shape != (C,):
        raise ValueError("gamma and beta must have shape (C,)")
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta
