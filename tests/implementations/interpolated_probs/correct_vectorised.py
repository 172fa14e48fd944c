"""Vectorised with np.divide(where=...)."""

import numpy as np

EXPECT = "pass"


def interpolated_probs(counts, lam):
    if not 0.0 <= lam <= 1.0:
        raise ValueError(f"lam must lie in [0, 1], got {lam}")
    counts = np.asarray(counts, dtype=np.float64)
    unigram = counts.sum(axis=0) / counts.sum()
    rows = counts.sum(axis=1, keepdims=True)
    ml = np.divide(counts, rows, out=np.zeros_like(counts), where=rows > 0)
    mixed = lam * ml + (1.0 - lam) * unigram
    return np.where(rows > 0, mixed, unigram)
