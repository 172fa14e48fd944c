"""np.asarray(counts, dtype=float) copies an int table but not a float64 one: += and /= write into it."""

import numpy as np

EXPECT = "modified"


def bigram_probs(counts, k=0.0):
    c = np.asarray(counts, dtype=float)
    c += k
    totals = c.sum(axis=1, keepdims=True)
    c /= np.where(totals > 0, totals, 1.0)
    c[totals[:, 0] == 0] = 1.0 / c.shape[1]
    return c
