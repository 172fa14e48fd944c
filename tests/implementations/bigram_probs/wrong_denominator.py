"""Denominator row total + k instead of + kV."""

import numpy as np

EXPECT = "the denominator misses the k"


def bigram_probs(counts, k=0.0):
    smoothed = counts + k
    totals = counts.sum(axis=1, keepdims=True) + k
    return np.where(totals > 0, smoothed / np.where(totals > 0, totals, 1), 1.0 / counts.shape[1])
