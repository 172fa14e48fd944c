"""np.divide with where= and a uniform default."""

import numpy as np

EXPECT = "pass"


def bigram_probs(counts, k=0.0):
    smoothed = counts + float(k)
    totals = smoothed.sum(axis=1, keepdims=True)
    out = np.full(smoothed.shape, 1.0 / smoothed.shape[1])
    return np.divide(smoothed, totals, out=out, where=totals > 0)
