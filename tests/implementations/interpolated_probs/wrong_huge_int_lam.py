"""Returns an integer of 400 digits as lam (a red team's: it crashed the judge before)."""

import numpy as np

EXPECT = "too large for a float64"


def interpolated_probs(counts, held_out):
    return np.full(np.shape(counts), 0.1), 10**400
