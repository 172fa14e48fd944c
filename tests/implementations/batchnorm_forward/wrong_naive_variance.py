"""The batch variance as mean(x^2) - mean^2: every digit lost for a feature of mean 1e6."""

import numpy as np

EXPECT = "nearly equal numbers"


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
    if not training:
        out = gamma * (x - running_mean) / np.sqrt(running_var + eps) + beta
        return out, running_mean.copy(), running_var.copy()
    mean = x.mean(axis=0)
    var = (x**2).mean(axis=0) - mean**2
    new_mean = (1 - momentum) * running_mean + momentum * mean
    new_var = (1 - momentum) * running_var + momentum * var * B / (B - 1)
    return gamma * (x - mean) / np.sqrt(var + eps) + beta, new_mean, new_var
