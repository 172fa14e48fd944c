"""np.nditer with multi_index over x, saving and restoring each entry."""

import numpy as np

EXPECT = "pass"


def numerical_gradient(f, x, eps=1e-5):
    grad = np.empty_like(x, dtype=np.float64)
    it = np.nditer(x, flags=["multi_index"])
    while not it.finished:
        i = it.multi_index
        old = x[i].copy()
        x[i] = old + eps
        up = f(x)
        x[i] = old - eps
        down = f(x)
        x[i] = old
        grad[i] = (up - down) / (2 * eps)
        it.iternext()
    return grad
