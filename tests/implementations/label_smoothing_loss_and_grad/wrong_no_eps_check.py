"""Accepts any eps."""

import numpy as np

EXPECT = "eps must lie in [0, 1]"


def label_smoothing_loss_and_grad(logits, targets, eps):
    if logits.ndim != 2 or targets.shape != (logits.shape[0],):
        raise ValueError("expected logits (B, V) and targets (B,)")
    B, V = logits.shape
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    q = np.full((B, V), eps / V)
    q[np.arange(B), targets] += 1.0 - eps
    return float(-(q * log_p).sum() / B), (np.exp(log_p) - q) / B
