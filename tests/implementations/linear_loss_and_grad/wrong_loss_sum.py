"""The loss is summed."""

import numpy as np


def _parts(weights, bias, inputs, targets):
    B = inputs.shape[0]
    z = inputs @ weights + bias
    z = z - z.max(axis=1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    dz = np.exp(log_p)
    dz[np.arange(B), targets] -= 1
    return B, -log_p[np.arange(B), targets].mean(), dz


EXPECT = "exactly B times the contract's"


def linear_loss_and_grad(weights, bias, inputs, targets):
    B, loss, dz = _parts(weights, bias, inputs, targets)
    return loss * B, inputs.T @ dz / B, dz.sum(axis=0) / B
