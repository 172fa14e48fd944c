"""Checks the number of dimensions only: one target broadcasts against every row."""

import numpy as np

EXPECT = "ValueError"


def cross_entropy(logits, targets):
    logits, targets = np.asarray(logits, dtype=float), np.asarray(targets)
    if logits.ndim != 2 or targets.ndim != 1:
        raise ValueError("logits (B, V), targets (B,)")
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return float(-log_probs[np.arange(len(logits)), targets].mean())
