"""Central differences with x cast to float32: f's rounding swamps the difference quotient."""

import numpy as np

EXPECT = "the contract is float64"


def numerical_gradient(f, x, eps=1e-5):
    grad = np.zeros(x.shape, dtype=np.float32)
    for index in np.ndindex(x.shape):
        saved = x[index]
        x[index] = np.float32(saved) + np.float32(eps)
        plus = np.float32(f(x))
        x[index] = np.float32(saved) - np.float32(eps)
        minus = np.float32(f(x))
        x[index] = saved
        grad[index] = (plus - minus) / np.float32(2 * eps)
    return grad.astype(np.float64)
