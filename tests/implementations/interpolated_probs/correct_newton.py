"""Newton's method on the derivative, kept inside [0, 1], the ends settled by its sign first;
loops over Python floats."""

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

    terms = list(zip(m.tolist(), u.tolist(), h.tolist(), strict=True))

    def slope(lam):
        return sum(c * (a - b) / (lam * a + (1 - lam) * b) for a, b, c in terms)

    def curvature(lam):
        return -sum(c * (a - b) ** 2 / (lam * a + (1 - lam) * b) ** 2 for a, b, c in terms)

    if slope(0.0) <= 0:
        lam = 0.0
    elif all(a > 0 for a, _, _ in terms) and slope(1.0) >= 0:
        lam = 1.0
    else:
        lam, low, high = 0.5, 0.0, 1.0
        for _ in range(100):
            s = slope(lam)
            low, high = (lam, high) if s > 0 else (low, lam)
            step = lam - s / curvature(lam)
            lam = step if low < step < high else (low + high) / 2
    return np.where(rows > 0, lam * ml + (1.0 - lam) * unigram, unigram), lam
