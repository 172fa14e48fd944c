"""Indexed assignment: a repeated previous token keeps only its last row."""

import numpy as np

EXPECT = "repeated indices in one assignment"


def bigram_loss_and_grad(table, previous, targets):
    B = len(previous)
    logits = table[previous]
    shifted = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(shifted) / np.exp(shifted).sum(axis=1, keepdims=True)
    loss = -np.log(p[np.arange(B), targets]).mean()
    dlogits = p.copy()
    dlogits[np.arange(B), targets] -= 1
    grad = np.zeros_like(table)
    grad[previous] += dlogits / B
    return loss, grad
