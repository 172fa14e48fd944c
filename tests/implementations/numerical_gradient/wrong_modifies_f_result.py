"""Subtracts in place into what f returned (plus -= minus): f's own arrays change."""

import numpy as np

EXPECT = "f's answers are not yours to change"


def numerical_gradient(f, x, eps=1e-5):
    grad = np.zeros(x.shape)
    for index in np.ndindex(x.shape):
        saved = x[index]
        x[index] = saved + eps
        plus = f(x)
        x[index] = saved - eps
        minus = f(x)
        x[index] = saved
        plus -= minus
        grad[index] = plus / (2 * eps)
    return grad
