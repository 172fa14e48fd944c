"""Divides the central difference by eps instead of 2 eps."""

import numpy as np

EXPECT = "twice the derivative"


def numerical_gradient(f, x, eps=1e-5):
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        plus = f(x)
        x[i] = old - eps
        minus = f(x)
        x[i] = old
        grad[i] = (plus - minus) / eps
    return grad
