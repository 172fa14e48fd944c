"""np.ndindex loop, saving and restoring each entry."""

import numpy as np

EXPECT = "pass"


def numerical_gradient(f, x, eps=1e-5):
    grad = np.zeros_like(x, dtype=float)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        plus = f(x)
        x[i] = old - eps
        minus = f(x)
        x[i] = old
        grad[i] = (plus - minus) / (2 * eps)
    return grad
