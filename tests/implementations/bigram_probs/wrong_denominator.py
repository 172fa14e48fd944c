"""Denominator row total + k instead of + kV."""

import numpy as np

EXPECT = "k·V"


def bigram_probs(counts, k=0.0):
    smoothed = counts + k
    totals = counts.sum(axis=1, keepdims=True) + k
    return np.where(totals > 0, smoothed / np.where(totals > 0, totals, 1), 1.0 / counts.shape[1])
