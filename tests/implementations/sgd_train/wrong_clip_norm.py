"""Rescales the whole gradient to norm at most 100: only large gradients notice."""

import numpy as np

EXPECT = "no clipping"


def sgd_train(params, loss_and_grads, batches, learning_rate):
    losses = []
    for X, Y in batches:
        loss, grads = loss_and_grads(params, X, Y)
        norm = np.sqrt(sum(float(np.sum(g**2)) for g in grads.values()))
        scale = min(1.0, 100.0 / (norm + 1e-12))
        for name, grad in grads.items():
            params[name] = params[name] - learning_rate * scale * grad
        losses.append(float(loss))
    return losses
