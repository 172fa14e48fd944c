"""eps / (V - 1) on the other classes."""

import numpy as np

EXPECT = "other V - 1 classes only"


def label_smoothing_loss_and_grad(logits, targets, eps):
    if logits.ndim != 2 or targets.shape != (logits.shape[0],):
        raise ValueError("expected logits (B, V) and targets (B,)")
    if not 0.0 <= eps <= 1.0:
        raise ValueError("eps must lie in [0, 1]")
    B, V = logits.shape
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    q = np.full((B, V), eps / (V - 1))
    q[np.arange(B), targets] = 1.0 - eps
    return float(-(q * log_p).sum() / B), (np.exp(log_p) - q) / B
