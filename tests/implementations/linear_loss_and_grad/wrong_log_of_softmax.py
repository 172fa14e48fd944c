"""Stable softmax, but the loss takes log of a probability that underflows to 0 (inf loss)."""

import numpy as np

EXPECT = "the log of a probability that rounded to 0"


def linear_loss_and_grad(weights, bias, inputs, targets):
    B = inputs.shape[0]
    z = inputs @ weights + bias
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    loss = float(-np.log(p[np.arange(B), targets]).mean())
    dz = p.copy()
    dz[np.arange(B), targets] -= 1
    dz /= B
    return loss, inputs.T @ dz, dz.sum(axis=0)
