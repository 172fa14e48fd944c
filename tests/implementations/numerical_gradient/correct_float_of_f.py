"""np.nditer over a writable x, f's answers read as floats."""

import numpy as np

EXPECT = "pass"


def numerical_gradient(f, x, eps=1e-5):
    grad = np.zeros(x.shape, dtype=float)
    with np.nditer(x, flags=["multi_index"], op_flags=["readwrite"]) as it:
        for entry in it:
            saved = float(entry)
            entry[...] = saved + eps
            plus = float(f(x))
            entry[...] = saved - eps
            minus = float(f(x))
            entry[...] = saved
            grad[it.multi_index] = (plus - minus) / (2 * eps)
    return grad
