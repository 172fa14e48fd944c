"""Returns the table itself when its rows already sum to 1."""

import numpy as np

EXPECT = "a view of it"


def bigram_probs(counts, k=0.0):
    if k == 0 and np.issubdtype(counts.dtype, np.floating) and np.allclose(counts.sum(axis=1), 1):
        return counts
    c = np.asarray(counts, dtype=float) + k
    rows = c.sum(axis=1, keepdims=True)
    return np.where(rows > 0, c / np.where(rows > 0, rows, 1), 1.0 / c.shape[1])
