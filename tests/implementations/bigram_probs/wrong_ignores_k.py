"""Never uses k."""

import numpy as np

EXPECT = "k was ignored"


def bigram_probs(counts, k=0.0):
    totals = counts.sum(axis=1, keepdims=True)
    return np.where(totals > 0, counts / np.where(totals > 0, totals, 1), 1.0 / counts.shape[1])
