"""Never checks gamma: one number broadcasts."""

import numpy as np

EXPECT = "ValueError"


def layer_norm(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=-1, keepdims=True) + eps) * gamma + beta
