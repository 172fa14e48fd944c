"""Computes in float32 inside, returns a float and a float64 gradient."""

import numpy as np

EXPECT = "pass"


def label_smoothing_loss_and_grad(logits, targets, eps):
    if logits.ndim != 2 or np.shape(targets) != (logits.shape[0],):
        raise ValueError("expected logits (B, V) and targets (B,)")
    if not 0.0 <= eps <= 1.0:
        raise ValueError("eps must lie in [0, 1]")
    B, V = logits.shape
    z = logits.astype(np.float32)
    shifted = z - z.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    q = np.full((B, V), eps / V, dtype=np.float32)
    q[np.arange(B), targets] += np.float32(1.0 - eps)
    loss = -(q * log_p).sum() / B
    return float(loss), ((np.exp(log_p) - q) / B).astype(np.float64)
