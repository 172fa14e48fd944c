"""Loss by PyTorch, gradient by autograd."""

import numpy as np
import torch

EXPECT = "graded without PyTorch"


def bigram_loss_and_grad(table, previous, targets):
    W = torch.tensor(np.asarray(table, dtype=float), requires_grad=True)
    logits = W[torch.as_tensor(np.asarray(previous), dtype=torch.int64)]
    loss = torch.nn.functional.cross_entropy(logits, torch.as_tensor(np.asarray(targets)).long())
    loss.backward()
    return float(loss), W.grad.numpy()
