"""Row totals by einsum, division by a reciprocal, empty rows set afterwards."""

import numpy as np

EXPECT = "pass"


def bigram_probs(counts, k=0.0):
    smoothed = counts + np.float64(k)
    totals = np.einsum("ij->i", smoothed)
    V = smoothed.shape[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        probs = smoothed / totals[:, None]
    probs[totals == 0] = 1.0 / V
    return probs.astype(np.float64)
