"""Autograd after leaving inference mode (which turns grad mode back on from C++): refused."""

import numpy as np
import torch

EXPECT = "graded without PyTorch"


def linear_loss_and_grad(weights, bias, inputs, targets):
    with torch.inference_mode(False):
        W = torch.tensor(np.asarray(weights, float), requires_grad=True)
        b = torch.tensor(np.asarray(bias, float), requires_grad=True)
        x = torch.tensor(np.asarray(inputs, float))
        y = torch.as_tensor(np.asarray(targets)).long()
        z = x @ W + b
        loss = (torch.logsumexp(z, dim=1) - z[torch.arange(len(y)), y]).mean()
        dW, db = torch.autograd.grad(loss, [W, b])
    return loss.item(), dW.numpy(), db.numpy()
