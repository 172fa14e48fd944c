"""Ignores the eps argument."""

import numpy as np

EXPECT = "eps argument"


def numerical_gradient(f, x, eps=1e-5):
    h = 1e-5
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + h
        plus = f(x)
        x[i] = old - h
        minus = f(x)
        x[i] = old
        grad[i] = (plus - minus) / (2 * h)
    return grad
