"""Per-example loop with log-sum-exp, accumulating each row's gradient."""

import numpy as np

EXPECT = "pass"


def bigram_loss_and_grad(table, previous, targets):
    B = len(previous)
    grad = np.zeros_like(table, dtype=float)
    loss = 0.0
    for prev, target in zip(previous, targets):
        row = table[prev] - table[prev].max()
        log_z = np.log(np.exp(row).sum())
        p = np.exp(row - log_z)
        loss += log_z - row[target]
        d = p.copy()
        d[target] -= 1
        grad[prev] += d / B
    return loss / B, grad
