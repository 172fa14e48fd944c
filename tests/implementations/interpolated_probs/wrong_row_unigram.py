"""The unigram from row sums (how often a character comes first)."""

import numpy as np

EXPECT = "over the wrong character"


def interpolated_probs(counts, lam):
    if not 0.0 <= lam <= 1.0:
        raise ValueError("lam")
    counts = np.asarray(counts, dtype=np.float64)
    unigram = counts.sum(axis=1) / counts.sum()
    rows = counts.sum(axis=1, keepdims=True)
    ml = np.divide(counts, rows, out=np.zeros_like(counts), where=rows > 0)
    return np.where(rows > 0, lam * ml + (1.0 - lam) * unigram, unigram)
