"""Subtracts the row max from the caller's table in place (float64 tables are not copied)."""

import numpy as np

EXPECT = "modified"


def bigram_loss_and_grad(table, previous, targets):
    B = len(previous)
    t = np.asarray(table, dtype=np.float64)
    t -= t.max(axis=1, keepdims=True)
    logits = t[previous]
    log_p = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    loss = float(-log_p[np.arange(B), targets].mean())
    d = np.exp(log_p)
    d[np.arange(B), targets] -= 1
    grad = np.zeros(table.shape)
    np.add.at(grad, previous, d / B)
    return loss, grad
