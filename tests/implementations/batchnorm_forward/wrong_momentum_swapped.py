"""Keeps momentum of the old value instead of 1 - momentum."""

import numpy as np


def _validate(x, gamma, beta, running_mean, running_var, training):
    if x.ndim != 2:
        raise ValueError("x must be (B, D)")
    for a in (gamma, beta, running_mean, running_var):
        if a.shape != (x.shape[1],):
            raise ValueError("parameters must be (D,)")
    if training and x.shape[0] < 2:
        raise ValueError("training needs B >= 2")


EXPECT = "the running statistics move the wrong distance"


def batchnorm_forward(
    x, gamma, beta, running_mean, running_var, momentum=0.1, eps=1e-5, training=True
):
    _validate(x, gamma, beta, running_mean, running_var, training)
    B = x.shape[0]
    if training:
        mean, var = x.mean(axis=0), x.var(axis=0)
        new_mean = momentum * running_mean + (1 - momentum) * mean
        new_var = momentum * running_var + (1 - momentum) * var * B / (B - 1)
    else:
        mean, var = running_mean, running_var
        new_mean, new_var = running_mean.copy(), running_var.copy()
    return gamma * (x - mean) / np.sqrt(var + eps) + beta, new_mean, new_var
