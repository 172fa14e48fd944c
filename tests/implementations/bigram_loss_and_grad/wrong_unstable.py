"""No max subtraction: overflows for large table entries."""

import numpy as np

EXPECT = "exp overflows"


def bigram_loss_and_grad(table, previous, targets):
    B = len(previous)
    e = np.exp(table[previous])
    p = e / e.sum(axis=1, keepdims=True)
    loss = -np.log(p[np.arange(B), targets]).mean()
    dlogits = p.copy()
    dlogits[np.arange(B), targets] -= 1
    grad = np.zeros_like(table)
    np.add.at(grad, previous, dlogits / B)
    return loss, grad
