"""torch.optim.SGD stepping tensors that share memory with the caller's arrays."""

import numpy as np
import torch

EXPECT = "graded without PyTorch"


def sgd_train(params, loss_and_grads, batches, learning_rate):
    losses = []
    for X, Y in batches:
        loss, grads = loss_and_grads(params, X, Y)
        tensors = []
        for name, grad in grads.items():
            t = torch.from_numpy(np.asarray(params[name]))
            t.grad = torch.from_numpy(np.asarray(grad, dtype=float))
            tensors.append(t)
        torch.optim.SGD(tensors, lr=learning_rate).step()
        losses.append(float(loss))
    return losses
