"""np.subtract into the parameter's own memory, names in sorted order, losses as NumPy floats."""

import numpy as np

EXPECT = "pass"


def sgd_train(params, loss_and_grads, batches, learning_rate):
    losses = []
    for X, Y in batches:
        loss, grads = loss_and_grads(params, X, Y)
        for name in sorted(grads):
            np.subtract(params[name], learning_rate * grads[name], out=params[name])
        losses.append(np.float64(loss))
    return losses
