"""Normalises over axis 0, like batch norm."""

import numpy as np

EXPECT = "normalised over the batch"


def layer_norm(x, gamma, beta, eps=1e-5):
    C = x.shape[-1]
    if gamma.shape != (C,) or beta.shape != (C,):
        raise ValueError("gamma and beta must have shape (C,)")
    mean = x.mean(axis=0)
    return (x - mean) / np.sqrt(x.var(axis=0) + eps) * gamma + beta
