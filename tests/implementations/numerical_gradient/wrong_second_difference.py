"""A derivation that added the two expansions: the second difference, f'' instead of f'."""

import numpy as np

EXPECT = "that is the second derivative"


def numerical_gradient(f, x, eps=1e-5):
    grad = np.zeros(x.shape)
    for index in np.ndindex(x.shape):
        old = x[index]
        base = f(x)
        x[index] = old + eps
        plus = f(x)
        x[index] = old - eps
        minus = f(x)
        x[index] = old
        grad[index] = (plus - 2 * base + minus) / eps**2
    return grad
