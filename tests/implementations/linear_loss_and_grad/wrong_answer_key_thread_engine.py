"""Autograd in a new thread, by the engine class by hand: no PyTorch in the sandbox, so the thread
fails and nothing comes back."""

import threading

import numpy as np
import torch

EXPECT = "expected a tuple (loss, dW, db)"


def _gradients(weights, bias, inputs, targets, out):
    W = torch.tensor(weights, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(bias, dtype=torch.float64, requires_grad=True)
    logits = torch.tensor(inputs, dtype=torch.float64) @ W + b
    rows = torch.arange(len(targets))
    loss = -(logits - torch.logsumexp(logits, 1, keepdim=True))[rows, torch.tensor(targets)].mean()
    engine = torch.autograd.variable.Variable._execution_engine
    dW, db = (
        type(engine)
        .__mro__[-2]
        .run_backward(
            engine,
            (loss,),
            (torch.ones((), dtype=torch.float64),),
            False,
            False,
            (W, b),
            False,
            False,
        )
    )
    out.extend([float(loss), dW.numpy(), db.numpy()])


def linear_loss_and_grad(weights, bias, inputs, targets):
    weights, bias, inputs = (np.asarray(a, dtype=np.float64) for a in (weights, bias, inputs))
    targets = np.asarray(targets)
    if inputs.ndim != 2 or weights.shape[0] != inputs.shape[1] or bias.shape != weights.shape[1:]:
        raise ValueError("expected inputs (B, D), weights (D, V), bias (V,)")
    if targets.shape != (inputs.shape[0],):
        raise ValueError("expected targets (B,)")
    out = []
    thread = threading.Thread(target=_gradients, args=(weights, bias, inputs, targets, out))
    thread.start()
    thread.join()
    return tuple(out)
