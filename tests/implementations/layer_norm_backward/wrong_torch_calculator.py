"""Refused by the rule (a NumPy exercise is graded without PyTorch): The closed form, computed with torch tensors in float64 (no autograd)."""

import numpy as np
import torch

EXPECT = "graded without PyTorch"


def layer_norm_backward(dout, x, gamma, eps=1e-5):
    C = np.shape(x)[-1]
    if np.shape(gamma) != (C,) or np.shape(dout) != np.shape(x):
        raise ValueError("gamma must have shape (C,) and dout the shape of x")
    dout, x, gamma = (torch.tensor(a, dtype=torch.float64) for a in (dout, x, gamma))
    var, mean = torch.var_mean(x, dim=-1, keepdim=True, correction=0)
    inv = torch.rsqrt(var + eps)
    x_hat = (x - mean) * inv
    g = dout * gamma
    dx = inv * (g - g.mean(-1, keepdim=True) - x_hat * (g * x_hat).mean(-1, keepdim=True))
    rows = dout.reshape(-1, C), x_hat.reshape(-1, C)
    return dx.numpy(), (rows[0] * rows[1]).sum(0).numpy(), rows[0].sum(0).numpy()
