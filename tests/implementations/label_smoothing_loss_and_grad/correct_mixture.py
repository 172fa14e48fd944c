"""As a mixture: (1 - eps) times the cross-entropy plus eps times the mean -log p over classes."""

import numpy as np

EXPECT = "pass"


def label_smoothing_loss_and_grad(logits, targets, eps):
    logits = np.asarray(logits, dtype=np.float64)
    if logits.ndim != 2 or np.shape(targets) != (len(logits),):
        raise ValueError(f"expected logits (B, V) and targets (B,), got {logits.shape}")
    if eps < 0 or eps > 1:
        raise ValueError("eps must lie in [0, 1]")
    B, V = logits.shape
    top = logits.max(axis=1, keepdims=True)
    lse = top + np.log(np.exp(logits - top).sum(axis=1, keepdims=True))
    log_p = logits - lse
    nll = -log_p[np.arange(B), targets].mean()
    uniform = -log_p.mean(axis=1).mean()
    grad = np.exp(log_p) - eps / V
    grad[np.arange(B), targets] -= 1.0 - eps
    return (1 - eps) * nll + eps * uniform, grad / B
