"""np.std (biased by default), divided through."""

import numpy as np

EXPECT = "pass"


def layer_norm(x, gamma, beta, eps=1e-5):
    C = x.shape[-1]
    if gamma.shape != (C,) or beta.shape != (C,):
        raise ValueError("gamma and beta must have shape (C,)")
    mean = np.mean(x, axis=-1, keepdims=True)
    return gamma * (x - mean) / np.sqrt(np.std(x, axis=-1, keepdims=True) ** 2 + eps) + beta
