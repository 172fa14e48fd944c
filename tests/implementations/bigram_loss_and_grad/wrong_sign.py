"""onehot - p."""

import numpy as np

EXPECT = "wrong sign"


def bigram_loss_and_grad(table, previous, targets):
    B = len(previous)
    logits = table[previous]
    shifted = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(shifted) / np.exp(shifted).sum(axis=1, keepdims=True)
    loss = -np.log(p[np.arange(B), targets]).mean()
    dlogits = -p
    dlogits[np.arange(B), targets] += 1
    grad = np.zeros_like(table)
    np.add.at(grad, previous, dlogits / B)
    return loss, grad
