"""Leaves eps out: a constant row divides 0 by 0, and a row of small spread is scaled too far."""

import numpy as np

EXPECT = "eps"


def layer_norm(x, gamma, beta, eps=1e-5):
    C = x.shape[-1]
    if gamma.shape != (C,) or beta.shape != (C,):
        raise ValueError("gamma and beta must have shape (C,)")
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var) * gamma + beta
