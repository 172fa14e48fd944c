"""The chapter's formulas with eps left out of the normalisation (only visible where eps matters)."""

import numpy as np

EXPECT = "eps was left out"


def batchnorm_forward(
    x, gamma, beta, running_mean, running_var, momentum=0.1, eps=1e-5, training=True
):
    if x.ndim != 2:
        raise ValueError("x must be 2-D (B, D)")
    B, D = x.shape
    for array in (gamma, beta, running_mean, running_var):
        if np.shape(array) != (D,):
            raise ValueError("gamma, beta, running_mean and running_var must have shape (D,)")
    if not training:
        return (
            gamma * (x - running_mean) / np.sqrt(running_var) + beta,
            running_mean.copy(),
            running_var.copy(),
        )
    if B < 2:
        raise ValueError("training needs at least two examples")
    mean, var = x.mean(axis=0), x.var(axis=0)
    out = gamma * (x - mean) / np.sqrt(var) + beta
    new_mean = (1 - momentum) * running_mean + momentum * mean
    new_var = (1 - momentum) * running_var + momentum * var * B / (B - 1)
    return out, new_mean, new_var
