"""Autograd from TorchScript, with grad mode switched on by TorchScript's own builtin (a JIT operator
that no Python-level patch sees): the grading process runs in inference mode, so no graph is
recorded and there is nothing to differentiate."""

import numpy as np
import torch

EXPECT = "graded without PyTorch"

SCRIPT = torch.jit.CompilationUnit(
    """
def loss_and_grads(x, y, W, b):
    torch.set_grad_enabled(True)
    z = x @ W + b
    loss = (torch.logsumexp(z, dim=1) - z.gather(1, y.unsqueeze(1)).squeeze(1)).mean()
    grads = torch.autograd.grad([loss], [W, b])
    return loss.detach(), grads[0], grads[1]
"""
)


def linear_loss_and_grad(weights, bias, inputs, targets):
    W = torch.tensor(np.asarray(weights, float), requires_grad=True)
    b = torch.tensor(np.asarray(bias, float), requires_grad=True)
    x = torch.tensor(np.asarray(inputs, float))
    y = torch.as_tensor(np.asarray(targets)).long()
    loss, dW, db = SCRIPT.loss_and_grads(x, y, W, b)
    return loss.item(), dW.numpy(), db.numpy()
