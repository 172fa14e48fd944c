"""Statistics over the features of each example (layer norm)."""

import numpy as np


def _validate(x, gamma, beta, running_mean, running_var, training):
    if x.ndim != 2:
        raise ValueError("x must be (B, D)")
    for a in (gamma, beta, running_mean, running_var):
        if a.shape != (x.shape[1],):
            raise ValueError("parameters must be (D,)")
    if training and x.shape[0] < 2:
        raise ValueError("training needs B >= 2")


EXPECT = "not each feature (column)"


def batchnorm_forward(
    x, gamma, beta, running_mean, running_var, momentum=0.1, eps=1e-5, training=True
):
    _validate(x, gamma, beta, running_mean, running_var, training)
    B = x.shape[0]
    mean, var = x.mean(axis=1, keepdims=True), x.var(axis=1, keepdims=True)
    new_mean = (1 - momentum) * running_mean + momentum * x.mean(axis=0)
    new_var = (
        (1 - momentum) * running_var + momentum * x.var(axis=0) * B / (B - 1)
        if B > 1
        else running_var.copy()
    )
    return gamma * (x - mean) / np.sqrt(var + eps) + beta, new_mean, new_var
