"""The multiplier found per row: p_j = (N_ij + k) / lambda, lambda = the row's smoothed total."""

import numpy as np

EXPECT = "pass"


def bigram_probs(counts, k=0.0):
    V = counts.shape[1]
    out = np.empty(counts.shape, dtype=np.float64)
    for i, row in enumerate(counts):
        smoothed = np.asarray(row, dtype=np.float64) + k  # a new array: row + k
        lam = smoothed.sum()
        out[i] = smoothed / lam if lam > 0 else np.full(V, 1.0 / V)
    return out
