"""Shifts every logit by the largest logit of the batch."""

import numpy as np

EXPECT = "leaves float64's range"


def linear_loss_and_grad(weights, bias, inputs, targets):
    z = inputs @ weights + bias
    B = len(targets)
    e = np.exp(z - z.max())
    p = e / e.sum(axis=1, keepdims=True)
    loss = -np.log(p[np.arange(B), targets]).mean()
    p[np.arange(B), targets] -= 1
    p /= B
    return float(loss), inputs.T @ p, p.sum(axis=0)
