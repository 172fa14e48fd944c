"""Scales each row so that its most frequent pair gets probability 1."""

import numpy as np

EXPECT = "the rows do not sum to 1: each row must be a distribution"


def bigram_probs(counts, k=0.0):
    smoothed = counts.astype(np.float64) + k
    peak = smoothed.max(axis=1, keepdims=True)
    return np.where(peak > 0, smoothed / np.where(peak > 0, peak, 1.0), 1.0 / counts.shape[1])
