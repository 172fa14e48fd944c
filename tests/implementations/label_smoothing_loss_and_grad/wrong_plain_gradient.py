"""Smooths the loss but not the gradient."""

import numpy as np

EXPECT = "as if the target were not smoothed"


def label_smoothing_loss_and_grad(logits, targets, eps):
    if logits.ndim != 2 or targets.shape != (logits.shape[0],):
        raise ValueError("expected logits (B, V) and targets (B,)")
    if not 0.0 <= eps <= 1.0:
        raise ValueError("eps must lie in [0, 1]")
    B, V = logits.shape
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    q = np.full((B, V), eps / V)
    q[np.arange(B), targets] += 1.0 - eps
    grad = np.exp(log_p)
    grad[np.arange(B), targets] -= 1.0
    return float(-(q * log_p).sum() / B), grad / B
