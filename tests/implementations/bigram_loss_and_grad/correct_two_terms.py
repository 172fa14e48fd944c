"""The derivation term by term: the log-sum-exp's softmax row, then -1 at each target, scattered by loops."""

import numpy as np

EXPECT = "pass"


def bigram_loss_and_grad(table, previous, targets):
    B = len(previous)
    grad = np.zeros(table.shape)
    loss = 0.0
    for prev, target in zip(previous, targets):
        row = np.asarray(table[prev], dtype=np.float64)
        top = row.max()
        lse = top + np.log(np.exp(row - top).sum())
        loss += (lse - row[target]) / B
        grad[prev] += np.exp(row - lse) / B  # d lse / dz_j
        grad[prev, target] -= 1.0 / B  # d(-z_y) / dz_y
    return float(loss), grad
