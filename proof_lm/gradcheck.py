"""Gradient checking: central differences and the relative error between two gradients."""

from collections.abc import Callable

import numpy as np


def central_difference(f: Callable[[], float], x: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    """d f() / d x by central differences, perturbing x in place one entry at a time (restored exactly)."""
    grad = np.zeros(x.shape, dtype=np.float64)
    for index in np.ndindex(x.shape):
        original = x[index]
        x[index] = original + eps
        plus = f()
        x[index] = original - eps
        minus = f()
        x[index] = original
        grad[index] = (plus - minus) / (2 * eps)
    return grad


def relative_error(a: np.ndarray, b: np.ndarray, floor: float = 1e-12) -> float:
    """max |a - b| / max(|a| + |b|, floor), elementwise: about 1e-7 or less for a correct float64 gradient."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float((np.abs(a - b) / np.maximum(np.abs(a) + np.abs(b), floor)).max())
