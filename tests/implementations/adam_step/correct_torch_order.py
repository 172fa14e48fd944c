"""PyTorch's arithmetic: step size lr / c1, denominator sqrt(v) / sqrt(c2) + eps."""

import numpy as np

EXPECT = "pass"


def adam_step(param, grad, m, v, t, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
    if t < 1:
        raise ValueError("t is the step number, at least 1")
    b1, b2 = betas
    g = grad + weight_decay * param if weight_decay else grad
    m = m * b1 + g * (1 - b1)
    v = v * b2 + g * g * (1 - b2)
    step_size = lr / (1 - b1**t)
    denom = np.sqrt(v) / np.sqrt(1 - b2**t) + eps
    return param - step_size * m / denom, m, v
