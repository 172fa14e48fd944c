"""Refused by the rule (a NumPy exercise is graded without PyTorch): torch.var_mean over the batch in float64 (a calculator; not torch's batch_norm)."""

import numpy as np
import torch

EXPECT = "graded without PyTorch"


def batchnorm_forward(
    x, gamma, beta, running_mean, running_var, momentum=0.1, eps=1e-5, training=True
):
    if np.ndim(x) != 2:
        raise ValueError("x must be (B, D)")
    B, D = np.shape(x)
    if any(np.shape(a) != (D,) for a in (gamma, beta, running_mean, running_var)):
        raise ValueError("gamma, beta and the running statistics must be (D,)")
    if training and B < 2:
        raise ValueError("training needs B >= 2")
    xt = torch.tensor(x, dtype=torch.float64)
    rm, rv = torch.tensor(running_mean), torch.tensor(running_var)
    if training:
        var, mean = torch.var_mean(xt, dim=0, correction=0)
        rm = torch.lerp(rm, mean, momentum)
        rv = torch.lerp(rv, torch.var(xt, dim=0, correction=1), momentum)
    else:
        mean, var = rm, rv
    out = (xt - mean) / torch.sqrt(var + eps) * torch.tensor(gamma) + torch.tensor(beta)
    return out.numpy(), rm.numpy(), rv.numpy()
