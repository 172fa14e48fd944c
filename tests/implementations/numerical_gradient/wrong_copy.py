"""Perturbs a copy: an f that reads x directly sees nothing."""

import numpy as np

EXPECT = "the perturbation never reached x"


def numerical_gradient(f, x, eps=1e-5):
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[i] += eps
        minus[i] -= eps
        grad[i] = (f(plus) - f(minus)) / (2 * eps)
    return grad
