"""The draft with two bugs fixed: eps is still added outside the square root."""

import numpy as np

EXPECT = "where does eps enter the denominator"


def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    """The catalogued draft, as its file\'s docstring says."""
    C = x.shape[-1]
    if gamma.shape != (C,) or beta.shape != (C,):
        raise ValueError(
            f"gamma and beta must have shape (C,) = ({C},); got {gamma.shape}, {beta.shape}"
        )
    axis = -1  # the axis the statistics are taken over
    mean = x.mean(axis=axis, keepdims=True)
    var = ((x - mean) ** 2).sum(axis=axis, keepdims=True) / x.shape[axis]
    return (x - mean) / (np.sqrt(var) + eps) * gamma + beta
