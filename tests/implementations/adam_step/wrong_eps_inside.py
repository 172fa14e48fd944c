"""eps under the root."""

import numpy as np

EXPECT = "where does eps enter"


def adam_step(param, grad, m, v, t, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
    if t < 1:
        raise ValueError("t is the step number, at least 1")
    b1, b2 = betas
    g = grad + weight_decay * param
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g**2
    m_hat, v_hat = m / (1 - b1**t), v / (1 - b2**t)
    return param - lr * m_hat / np.sqrt(v_hat + eps), m, v
