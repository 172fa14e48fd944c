"""The best of 10,001 evenly spaced lam."""

import numpy as np

EXPECT = "values or steps change"


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

    grid = np.linspace(0, 1, 10_001)
    with np.errstate(divide="ignore"):
        logliks = [np.sum(h * np.log(g * m + (1 - g) * u)) for g in grid]
    lam = float(grid[int(np.argmax(logliks))])
    return np.where(rows > 0, lam * ml + (1.0 - lam) * unigram, unigram), lam
