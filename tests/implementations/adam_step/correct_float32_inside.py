"""The update in float32 (as torch.optim.Adam on float32 parameters), returned as float64."""

import numpy as np

EXPECT = "pass"


def adam_step(param, grad, m, v, t, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
    if t < 1:
        raise ValueError("t is the step number, at least 1")
    p, g, m, v = (np.asarray(a, dtype=np.float32) for a in (param, grad, m, v))
    b1, b2 = np.float32(betas[0]), np.float32(betas[1])
    g = g + np.float32(weight_decay) * p
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    m_hat = m / (1 - b1**t)
    v_hat = v / (1 - b2**t)
    new = p - np.float32(lr) * m_hat / (np.sqrt(v_hat) + np.float32(eps))
    return new.astype(np.float64), m.astype(np.float64), v.astype(np.float64)
