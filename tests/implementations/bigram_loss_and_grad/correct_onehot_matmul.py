"""Logits as onehot @ table; the gradient as onehot.T @ dlogits (which sums repeats)."""

import numpy as np

EXPECT = "pass"


def bigram_loss_and_grad(table, previous, targets):
    B, V = len(previous), table.shape[0]
    onehot = np.eye(V)[previous]  # (B, V)
    logits = onehot @ table
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = -log_probs[np.arange(B), targets].mean()
    dlogits = np.exp(log_probs)
    dlogits[np.arange(B), targets] -= 1
    return loss, onehot.T @ (dlogits / B)
