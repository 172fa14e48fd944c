"""Normalises in float32: fails the feature of mean 1e6 and spread 1e-2, which float32 cannot hold."""

import numpy as np

EXPECT = "7 digits cannot even hold"


def _validate(x, gamma, beta, running_mean, running_var, training):
    if x.ndim != 2:
        raise ValueError("x must be (B, D)")
    for a in (gamma, beta, running_mean, running_var):
        if a.shape != (x.shape[1],):
            raise ValueError("parameters must be (D,)")
    if training and x.shape[0] < 2:
        raise ValueError("training needs B >= 2")


def batchnorm_forward(
    x, gamma, beta, running_mean, running_var, momentum=0.1, eps=1e-5, training=True
):
    _validate(x, gamma, beta, running_mean, running_var, training)
    B = x.shape[0]
    x32 = x.astype(np.float32)
    if training:
        mean, var = x32.mean(axis=0), x32.var(axis=0)
        new_mean = (1 - momentum) * running_mean + momentum * mean
        new_var = (1 - momentum) * running_var + momentum * var * B / (B - 1)
    else:
        mean, var = running_mean.astype(np.float32), running_var.astype(np.float32)
        new_mean, new_var = running_mean.copy(), running_var.copy()
    out = (x32 - mean) / np.sqrt(var + np.float32(eps))
    return gamma * out.astype(np.float64) + beta, new_mean.astype(np.float64), new_var
