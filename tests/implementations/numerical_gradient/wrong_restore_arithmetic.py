"""Restores by arithmetic: rounding leaves x slightly changed."""

import numpy as np

EXPECT = "restored exactly"


def numerical_gradient(f, x, eps=1e-5):
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        x[i] += eps
        plus = f(x)
        x[i] -= 2 * eps
        minus = f(x)
        x[i] += eps
        grad[i] = (plus - minus) / (2 * eps)
    return grad
