"""Correct numbers, but never raises for bad shapes."""

import numpy as np

EXPECT = "ValueError"


def cross_entropy(logits, targets):
    logits = np.atleast_2d(logits)
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    targets = np.ravel(targets)[: len(log_probs)]
    return float(-log_probs[np.arange(len(targets)), targets].mean())
