"""exp without the shift."""

import numpy as np

EXPECT = "not numerically stable"


def label_smoothing_loss_and_grad(logits, targets, eps):
    if logits.ndim != 2 or targets.shape != (logits.shape[0],):
        raise ValueError("expected logits (B, V) and targets (B,)")
    if not 0.0 <= eps <= 1.0:
        raise ValueError("eps must lie in [0, 1]")
    B, V = logits.shape
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    q = np.full((B, V), eps / V)
    q[np.arange(B), targets] += 1.0 - eps
    return float(-(q * np.log(p)).sum() / B), (p - q) / B
