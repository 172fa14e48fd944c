"""np.array copies whatever the dtype, so in-place arithmetic on the copy is safe."""

import numpy as np

EXPECT = "pass"


def bigram_probs(counts, k=0.0):
    probs = np.array(counts, dtype=np.float64)
    probs += k
    totals = probs.sum(axis=1)
    for row, total in enumerate(totals):
        if total > 0:
            probs[row] /= total
        else:
            probs[row] = 1.0 / probs.shape[1]
    return probs
