"""An empty row keeps only (1 - lam) times the unigram."""

import numpy as np

EXPECT = "a row with no counts"


def interpolated_probs(counts, lam):
    if not 0.0 <= lam <= 1.0:
        raise ValueError("lam")
    counts = np.asarray(counts, dtype=np.float64)
    unigram = counts.sum(axis=0) / counts.sum()
    rows = counts.sum(axis=1, keepdims=True)
    ml = np.divide(counts, rows, out=np.zeros_like(counts), where=rows > 0)
    return lam * ml + (1.0 - lam) * unigram
