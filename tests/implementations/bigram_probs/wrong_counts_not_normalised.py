"""Sets each derivative to zero without the constraint's multiplier: returns counts + k."""

import numpy as np

EXPECT = "the constraint that each row sums to 1"


def bigram_probs(counts, k=0.0):
    return counts.astype(np.float64) + k
