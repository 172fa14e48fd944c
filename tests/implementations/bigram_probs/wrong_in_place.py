"""Adds k in place: the caller's table changes."""

import numpy as np

EXPECT = "modified"


def bigram_probs(counts, k=0.0):
    if counts.dtype.kind == "f":
        counts += k
        smoothed = counts
    else:
        counts += round(k)
        smoothed = counts + (k - round(k))
    totals = smoothed.sum(axis=1, keepdims=True)
    return np.where(totals > 0, smoothed / np.where(totals > 0, totals, 1), 1.0 / counts.shape[1])
