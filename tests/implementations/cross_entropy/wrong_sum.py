"""Sum over the batch."""

import numpy as np

EXPECT = "sum over the batch, not the mean"


def cross_entropy(logits, targets):
    if logits.ndim != 2 or targets.ndim != 1 or len(targets) != len(logits):
        raise ValueError("bad shapes")
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -log_probs[np.arange(len(targets)), targets].sum()
