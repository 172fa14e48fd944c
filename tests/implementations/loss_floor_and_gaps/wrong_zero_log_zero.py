"""N * log(N / rows) over every cell: NumPy's 0 * log 0 is nan."""

import numpy as np

EXPECT = "nan"


def _check(N, P):
    N, P = np.asarray(N, dtype=np.float64), np.asarray(P, dtype=np.float64)
    if N.ndim != 2 or N.shape[0] != N.shape[1] or P.shape != N.shape:
        raise ValueError("N and P must both be (V, V)")
    if (N < 0).any() or N.sum() == 0:
        raise ValueError("counts must be non-negative, at least one pair")
    if (P < 0).any() or not np.allclose(P.sum(axis=1), 1, rtol=0, atol=1e-6):
        raise ValueError("rows of P must be distributions")
    return N, P


def loss_floor_and_gaps(N, P):
    N, P = _check(N, P)
    rows = N.sum(axis=1, keepdims=True)
    with np.errstate(all="ignore"):
        best = N / rows
        floor = float(-(N * np.log(best)).sum() / N.sum())
        gaps = (N * (np.log(best) - np.log(P))).sum(axis=1) / N.sum()
    return floor, gaps
