"""The debug exercise's draft with its three bugs fixed, nothing else changed."""

import numpy as np

EXPECT = "pass"


def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    C = x.shape[-1]
    if gamma.shape != (C,) or beta.shape != (C,):
        raise ValueError(
            f"gamma and beta must have shape (C,) = ({C},); got {gamma.shape}, {beta.shape}"
        )
    x = np.asarray(x, dtype=np.float64)  # float64 throughout
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    x = x - mean
    return x / np.sqrt(var + eps) * gamma + beta
