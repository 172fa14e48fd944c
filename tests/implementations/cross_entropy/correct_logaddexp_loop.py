"""One example at a time with np.logaddexp.reduce; the validation written out."""

import numpy as np

EXPECT = "pass"


def cross_entropy(logits, targets):
    logits, targets = np.asarray(logits), np.asarray(targets)
    if logits.ndim != 2:
        raise ValueError(f"logits must be (B, V), got shape {logits.shape}")
    if targets.shape != (logits.shape[0],):
        raise ValueError(f"targets must be ({logits.shape[0]},), got shape {targets.shape}")
    total = 0.0
    for row, target in zip(logits.astype(np.float64), targets):
        total += np.logaddexp.reduce(row) - row[target]
    return total / len(targets)
