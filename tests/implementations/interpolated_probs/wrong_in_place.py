"""Normalises the caller's float counts in place."""

import numpy as np

EXPECT = "was modified"


def interpolated_probs(counts, lam):
    if not 0.0 <= lam <= 1.0:
        raise ValueError("lam")
    counts = np.asarray(counts, dtype=np.float64)
    unigram = counts.sum(axis=0) / counts.sum()
    rows = counts.sum(axis=1, keepdims=True)
    np.divide(counts, rows, out=counts, where=rows > 0)
    counts *= lam
    counts += (1.0 - lam) * unigram
    counts[rows[:, 0] == 0] = unigram
    return counts
