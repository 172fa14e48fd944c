"""Newton's method on the derivative from 0.5, never kept inside [0, 1]."""

import numpy as np

EXPECT = "outside [0, 1]"


def interpolated_probs(counts, held_out):
    counts = np.asarray(counts, dtype=np.float64)
    held_out = np.asarray(held_out, dtype=np.float64)
    if counts.ndim != 2 or counts.shape[0] != counts.shape[1] or held_out.shape != counts.shape:
        raise ValueError("counts and held_out must have the same (V, V) shape")
    if held_out.sum() == 0:
        raise ValueError("held_out has no counts")
    unigram = counts.sum(axis=0) / counts.sum()
    if (held_out[:, unigram == 0] > 0).any():
        raise ValueError("a held-out bigram has probability 0 whatever lam is")
    rows = counts.sum(axis=1, keepdims=True)
    ml = np.divide(counts, rows, out=np.zeros_like(counts), where=rows > 0)
    used = (held_out > 0) & (rows > 0)
    m, u, h = ml[used], np.broadcast_to(unigram, counts.shape)[used], held_out[used]

    lam = 0.5
    with np.errstate(all="ignore"):
        for _ in range(100):
            p = lam * m + (1 - lam) * u
            lam = lam + np.sum(h * (m - u) / p) / np.sum(h * (m - u) ** 2 / p**2)
    lam = float(lam)
    return np.where(rows > 0, lam * ml + (1.0 - lam) * unigram, unigram), lam
