"""Divides 0 by 0 on an empty row."""

import numpy as np

EXPECT = "got nan"


def interpolated_probs(counts, lam):
    if not 0.0 <= lam <= 1.0:
        raise ValueError("lam")
    counts = np.asarray(counts, dtype=np.float64)
    unigram = counts.sum(axis=0) / counts.sum()
    return lam * counts / counts.sum(axis=1, keepdims=True) + (1.0 - lam) * unigram
