"""Centres x in place."""

import numpy as np

EXPECT = "modified"


def layer_norm(x, gamma, beta, eps=1e-5):
    C = x.shape[-1]
    if gamma.shape != (C,) or beta.shape != (C,):
        raise ValueError("gamma and beta must have shape (C,)")
    x -= x.mean(axis=-1, keepdims=True)
    return x / np.sqrt((x**2).mean(axis=-1, keepdims=True) + eps) * gamma + beta
