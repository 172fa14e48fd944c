"""A fourth-order stencil: nearer the true derivative, but not the contract's two-point quotient."""

import numpy as np

EXPECT = "more points than the contract's two"


def numerical_gradient(f, x: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    grad = np.zeros_like(x, dtype=np.float64)
    for index in np.ndindex(x.shape):
        saved = x[index]
        values = []
        for step in (-2, -1, 1, 2):
            x[index] = saved + step * eps
            values.append(float(f(x)))
        x[index] = saved
        far_minus, minus, plus, far_plus = values
        grad[index] = (far_minus - 8 * minus + 8 * plus - far_plus) / (12 * eps)
    return grad
