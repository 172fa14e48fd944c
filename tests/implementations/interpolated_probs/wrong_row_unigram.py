"""The unigram of the previous character (row sums)."""

import numpy as np

EXPECT = "wrong character"


def interpolated_probs(counts, held_out):
    counts = np.asarray(counts, dtype=np.float64)
    held_out = np.asarray(held_out, dtype=np.float64)
    if counts.ndim != 2 or counts.shape[0] != counts.shape[1] or held_out.shape != counts.shape:
        raise ValueError("counts and held_out must have the same (V, V) shape")
    if held_out.sum() == 0:
        raise ValueError("held_out has no counts")
    unigram = counts.sum(axis=1) / counts.sum()
    rows = counts.sum(axis=1, keepdims=True)
    ml = np.divide(counts, rows, out=np.zeros_like(counts), where=rows > 0)
    used = (held_out > 0) & (rows > 0)
    m, u, h = ml[used], np.broadcast_to(unigram, counts.shape)[used], held_out[used]

    low, high = 0.0, 1.0
    for _ in range(200):
        middle = (low + high) / 2
        with np.errstate(divide="ignore"):
            rising = np.sum(h * (m - u) / (middle * m + (1 - middle) * u)) > 0
        low, high = (middle, high) if rising else (low, middle)
    lam = (low + high) / 2
    return np.where(rows > 0, lam * ml + (1.0 - lam) * unigram, unigram), lam
