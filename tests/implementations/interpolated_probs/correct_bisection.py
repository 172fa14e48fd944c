"""Bisection on the derivative of the concave held-out log-likelihood, vectorised."""

import numpy as np

EXPECT = "pass"


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

    def slope(lam):
        with np.errstate(divide="ignore"):
            return np.sum(h * (m - u) / (lam * m + (1 - lam) * u))

    low, high = 0.0, 1.0
    for _ in range(200):  # an end, when the slope keeps its sign, comes out as that end
        middle = (low + high) / 2
        if slope(middle) > 0:
            low = middle
        else:
            high = middle
    lam = 0.0 if slope(0.0) <= 0 else 1.0 if slope(1.0) >= 0 else (low + high) / 2
    return np.where(rows > 0, lam * ml + (1.0 - lam) * unigram, unigram), lam
