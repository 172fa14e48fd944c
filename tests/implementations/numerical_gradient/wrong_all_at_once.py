"""Perturbs every entry at once (a directional derivative, not a gradient)."""

import numpy as np

EXPECT = "partial derivative moves one entry"


def numerical_gradient(f, x, eps=1e-5):
    original = x.copy()
    x += eps
    plus = f(x)
    x[...] = original - eps
    minus = f(x)
    x[...] = original
    return np.full(x.shape, (plus - minus) / (2 * eps))
