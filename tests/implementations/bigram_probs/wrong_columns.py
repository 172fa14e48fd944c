"""Normalises columns."""

import numpy as np

EXPECT = "column"


def bigram_probs(counts, k=0.0):
    smoothed = counts + k
    totals = smoothed.sum(axis=0, keepdims=True)
    return np.where(totals > 0, smoothed / np.maximum(totals, 1e-300), 1.0 / counts.shape[0])
