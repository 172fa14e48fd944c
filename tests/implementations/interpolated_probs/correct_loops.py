"""Row by row, falling back to the unigram for an empty row."""

import numpy as np

EXPECT = "pass"


def interpolated_probs(counts, lam):
    if lam < 0 or lam > 1:
        raise ValueError("lam must be in [0, 1]")
    V = counts.shape[0]
    total = counts.sum()
    unigram = np.array([counts[:, b].sum() / total for b in range(V)])
    out = np.empty((V, V))
    for a in range(V):
        n = counts[a].sum()
        out[a] = unigram if n == 0 else lam * counts[a] / n + (1 - lam) * unigram
    return out
