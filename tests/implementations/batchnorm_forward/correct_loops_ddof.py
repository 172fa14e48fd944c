"""Per-feature loops, np.var with ddof, float32 inside nowhere; running statistics via lerp."""

import numpy as np


def _validate(x, gamma, beta, running_mean, running_var, training):
    if x.ndim != 2:
        raise ValueError("x must be (B, D)")
    for a in (gamma, beta, running_mean, running_var):
        if a.shape != (x.shape[1],):
            raise ValueError("parameters must be (D,)")
    if training and x.shape[0] < 2:
        raise ValueError("training needs B >= 2")


EXPECT = "pass"


def batchnorm_forward(
    x, gamma, beta, running_mean, running_var, momentum=0.1, eps=1e-5, training=True
):
    _validate(x, gamma, beta, running_mean, running_var, training)
    out = np.empty_like(x, dtype=float)
    new_mean = np.array(running_mean, dtype=float)
    new_var = np.array(running_var, dtype=float)
    for j in range(x.shape[1]):
        col = x[:, j]
        if training:
            m, v = col.mean(), np.var(col)
            new_mean[j] += momentum * (m - new_mean[j])
            new_var[j] += momentum * (np.var(col, ddof=1) - new_var[j])
        else:
            m, v = running_mean[j], running_var[j]
        out[:, j] = (col - m) * (gamma[j] / np.sqrt(v + eps)) + beta[j]
    return out, new_mean, new_var
