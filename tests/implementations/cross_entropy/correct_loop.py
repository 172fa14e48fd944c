"""Loop over the batch with log-sum-exp; validates shapes first."""

import math

import numpy as np

EXPECT = "pass"


def cross_entropy(logits, targets):
    logits, targets = np.asarray(logits), np.asarray(targets)
    if logits.ndim != 2 or targets.ndim != 1 or len(targets) != len(logits):
        raise ValueError(
            f"expected (B, V) logits and (B,) targets, got {logits.shape}, {targets.shape}"
        )
    total = 0.0
    for row, t in zip(logits, targets):
        m = max(row)
        total += m + math.log(sum(math.exp(x - m) for x in row)) - row[t]
    return total / len(targets)
