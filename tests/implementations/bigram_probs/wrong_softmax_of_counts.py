"""Reads 'log-likelihood' as logits: each row is a softmax of its counts."""

import numpy as np

EXPECT = "not the distribution that makes its own pairs"


def bigram_probs(counts, k=0.0):
    smoothed = counts.astype(np.float64) + k
    shifted = np.exp(smoothed - smoothed.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)
