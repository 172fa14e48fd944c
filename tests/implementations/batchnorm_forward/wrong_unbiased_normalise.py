"""Normalises with the unbiased variance."""

import numpy as np


def _validate(x, gamma, beta, running_mean, running_var, training):
    if x.ndim != 2:
        raise ValueError("x must be (B, D)")
    for a in (gamma, beta, running_mean, running_var):
        if a.shape != (x.shape[1],):
            raise ValueError("parameters must be (D,)")
    if training and x.shape[0] < 2:
        raise ValueError("training needs B >= 2")


EXPECT = "which variance normalises"


def batchnorm_forward(
    x, gamma, beta, running_mean, running_var, momentum=0.1, eps=1e-5, training=True
):
    _validate(x, gamma, beta, running_mean, running_var, training)
    if training:
        mean, var = x.mean(axis=0), x.var(axis=0, ddof=1)
        new_mean = (1 - momentum) * running_mean + momentum * mean
        new_var = (1 - momentum) * running_var + momentum * var
    else:
        mean, var = running_mean, running_var
        new_mean, new_var = running_mean.copy(), running_var.copy()
    return gamma * (x - mean) / np.sqrt(var + eps) + beta, new_mean, new_var
