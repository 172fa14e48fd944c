"""Forward difference."""

import numpy as np

EXPECT = "forward difference"


def numerical_gradient(f, x, eps=1e-5):
    grad = np.zeros_like(x)
    base = f(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        grad[i] = (f(x) - base) / eps
        x[i] = old
    return grad
