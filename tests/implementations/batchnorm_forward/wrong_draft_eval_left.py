"""The draft with two bugs fixed: evaluation mode still normalises with the batch."""

import numpy as np

EXPECT = "evaluation mode normalised with the batch's own statistics"


def batchnorm_forward(
    x: np.ndarray,
    gamma: np.ndarray,
    beta: np.ndarray,
    running_mean: np.ndarray,
    running_var: np.ndarray,
    momentum: float = 0.1,
    eps: float = 1e-5,
    training: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if x.ndim != 2:
        raise ValueError(f"x must be 2-D (B, D), got shape {x.shape}")
    B, D = x.shape
    for name, array in [
        ("gamma", gamma),
        ("beta", beta),
        ("running_mean", running_mean),
        ("running_var", running_var),
    ]:
        if np.shape(array) != (D,):
            raise ValueError(f"{name} must have shape ({D},), got {np.shape(array)}")
    if training and B < 2:
        raise ValueError(f"training needs at least two examples, got a batch of {B}")
    mean = x.mean(axis=0)  # (D,)
    var = x.var(axis=0)  # (D,)
    out = gamma * (x - mean) / np.sqrt(var + eps) + beta  # (B, D)
    if not training:
        return out, running_mean.copy(), running_var.copy()
    new_mean = (1 - momentum) * running_mean + momentum * mean
    new_var = (1 - momentum) * running_var + momentum * var * B / (B - 1)
    return out, new_mean, new_var
