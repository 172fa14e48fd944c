"""Keras's default momentum 0.99 in the signature (a different convention): the default is 0.1."""

import numpy as np

EXPECT = "the defaults are momentum=0.1"


def batchnorm_forward(
    x, gamma, beta, running_mean, running_var, momentum=0.99, eps=1e-3, training=True
):
    if x.ndim != 2:
        raise ValueError("x must be (B, D)")
    B, D = x.shape
    if any(np.shape(a) != (D,) for a in (gamma, beta, running_mean, running_var)):
        raise ValueError("gamma, beta and the running statistics must be (D,)")
    if not training:
        out = gamma * (x - running_mean) / np.sqrt(running_var + eps) + beta
        return out, running_mean.copy(), running_var.copy()
    if B < 2:
        raise ValueError("training needs B >= 2")
    mean, var = x.mean(axis=0), x.var(axis=0)
    new_mean = (1 - momentum) * running_mean + momentum * mean
    new_var = (1 - momentum) * running_var + momentum * var * B / (B - 1)
    return gamma * (x - mean) / np.sqrt(var + eps) + beta, new_mean, new_var
