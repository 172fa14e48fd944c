"""Works on x.reshape(-1): a view of a C-ordered x, but a copy of a transposed (Fortran-order) one."""

import numpy as np

EXPECT = "a reshape or ravel of a transposed x is a copy"


def numerical_gradient(f, x, eps=1e-5):
    flat = x.reshape(-1)  # a view of x
    grad = np.empty(flat.size)
    for i in range(flat.size):
        saved = flat[i].copy()
        flat[i] = saved + eps
        up = f(x)
        flat[i] = saved - eps
        down = f(x)
        flat[i] = saved
        grad[i] = (up - down) / (2 * eps)
    return grad.reshape(x.shape)
