"""Row by row in Python."""

import numpy as np

EXPECT = "pass"


def bigram_probs(counts, k=0.0):
    V = counts.shape[1]
    out = np.empty(counts.shape)
    for i in range(counts.shape[0]):
        row = counts[i] + k
        total = row.sum()
        out[i] = row / total if total > 0 else np.full(V, 1.0 / V)
    return out
