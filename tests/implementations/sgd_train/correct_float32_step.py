"""Each step computed in float32 (as on a GPU), stored back as float64 arrays."""

import numpy as np

EXPECT = "pass"


def sgd_train(params, loss_and_grads, batches, learning_rate):
    losses = []
    rate = np.float32(learning_rate)
    for X, Y in batches:
        loss, grads = loss_and_grads(params, X, Y)
        for name, grad in grads.items():
            step = np.asarray(params[name], dtype=np.float32) - rate * np.asarray(grad, np.float32)
            params[name] = step.astype(np.float64)
        losses.append(float(np.float32(loss)))
    return losses
