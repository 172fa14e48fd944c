"""EM for the mixing weight (the posterior share of the bigram stage), run until it stops
moving; the ends are settled by the derivative's sign first, where EM would crawl."""

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

    with np.errstate(divide="ignore"):
        at_one = np.sum(h * (m - u) / m)
    if np.sum(h * (m - u) / u) <= 0:
        lam = 0.0
    elif (m > 0).all() and at_one >= 0:
        lam = 1.0
    else:
        lam = 0.5
        for _ in range(100_000):
            new = np.sum(h * lam * m / (lam * m + (1 - lam) * u)) / h.sum()
            if new == lam:
                break
            lam = new
    return np.where(rows > 0, lam * ml + (1.0 - lam) * unigram, unigram), lam
