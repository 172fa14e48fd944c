"""Adds k on a new array but divides the caller's float table in place when k = 0."""

import numpy as np

EXPECT = "modified"


def bigram_probs(counts, k=0.0):
    c = np.asarray(counts, dtype=np.float64)
    if k:
        c = c + k
    totals = c.sum(axis=1, keepdims=True)
    np.divide(c, totals, out=c, where=totals > 0)
    c[totals[:, 0] == 0] = 1.0 / c.shape[1]
    return c
