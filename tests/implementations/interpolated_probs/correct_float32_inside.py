"""Mixes the two tables in float32, returns float64."""

import numpy as np

EXPECT = "pass"


def interpolated_probs(counts, lam):
    if not 0.0 <= lam <= 1.0:
        raise ValueError("lam must lie in [0, 1]")
    c = np.asarray(counts, dtype=np.float32)
    unigram = c.sum(axis=0) / c.sum()
    rows = c.sum(axis=1, keepdims=True)
    bigram = np.divide(c, rows, out=np.zeros_like(c), where=rows > 0)
    lam32 = np.float32(lam)
    return np.where(rows > 0, lam32 * bigram + (1 - lam32) * unigram, unigram).astype(np.float64)
