"""Scatter-add by np.bincount per column; log-softmax via np.logaddexp.reduce."""

import numpy as np

EXPECT = "pass"


def bigram_loss_and_grad(table, previous, targets):
    B, V = len(previous), table.shape[1]
    logits = table[previous].astype(np.float64)
    log_p = logits - np.logaddexp.reduce(logits, axis=1, keepdims=True)
    loss = -log_p[np.arange(B), targets].sum() / B
    d = np.exp(log_p)
    d[np.arange(B), targets] -= 1
    d /= B
    grad = np.stack(
        [np.bincount(previous, weights=d[:, j], minlength=table.shape[0]) for j in range(V)],
        axis=1,
    )
    return float(loss), grad
