"""Right gradients on paper, but exp of the raw logits: nan once logits reach the hundreds."""

import numpy as np

EXPECT = "leaves float64's range"


def linear_loss_and_grad(weights, bias, inputs, targets):
    B = inputs.shape[0]
    z = inputs @ weights + bias
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    loss = float(-np.log(p[np.arange(B), targets]).mean())
    dz = p.copy()
    dz[np.arange(B), targets] -= 1
    dz /= B
    return loss, inputs.T @ dz, dz.sum(axis=0)
