"""Gradients of the NPLM by PyTorch autograd (.backward())."""

import numpy as np
import torch

EXPECT = "graded without PyTorch"


def nplm_grads(P, X, Y):
    t = {
        k: torch.tensor(np.asarray(P[k], dtype=float), requires_grad=True)
        for k in ("E", "W1", "b1", "W2", "b2")
    }
    x = t["E"][torch.as_tensor(np.asarray(X)).long()].flatten(1)
    logits = torch.tanh(x @ t["W1"] + t["b1"]) @ t["W2"] + t["b2"]
    y = torch.as_tensor(np.asarray(Y)).long()
    loss = (torch.logsumexp(logits, dim=1) - logits[torch.arange(len(y)), y]).mean()
    loss.backward()
    return {k: v.grad.numpy() for k, v in t.items()}
