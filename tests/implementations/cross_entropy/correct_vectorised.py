"""Vectorised log-softmax, gathered with take_along_axis."""

import numpy as np

EXPECT = "pass"


def cross_entropy(logits, targets):
    if np.ndim(logits) != 2 or np.ndim(targets) != 1 or np.shape(logits)[0] != np.shape(targets)[0]:
        raise ValueError("logits must be (B, V) and targets (B,)")
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -np.take_along_axis(log_probs, targets[:, None], axis=1).mean()
