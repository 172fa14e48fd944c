"""torch.autograd.grad of PyTorch's cross-entropy."""

import numpy as np
import torch

EXPECT = "graded without PyTorch"


def linear_loss_and_grad(weights, bias, inputs, targets):
    W = torch.tensor(np.asarray(weights, dtype=float), requires_grad=True)
    b = torch.tensor(np.asarray(bias, dtype=float), requires_grad=True)
    logits = torch.tensor(np.asarray(inputs, dtype=float)) @ W + b
    loss = torch.nn.functional.cross_entropy(logits, torch.as_tensor(np.asarray(targets)).long())
    dW, db = torch.autograd.grad(loss, [W, b])
    return float(loss), dW.numpy(), db.numpy()
