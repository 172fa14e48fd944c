"""Each gap as the relative entropy with the two logs taken apart, cell by cell: log(best) - log(P) keeps enough digits near the floor (measured: 4.5e-4 at most against the part in a thousand asked)."""

import numpy as np

EXPECT = "pass"


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
    totals = N.sum(axis=1, keepdims=True)
    used = N > 0
    best = np.divide(N, totals, out=np.zeros_like(N), where=totals > 0)
    log_best = np.log(best, out=np.zeros_like(N), where=used)
    with np.errstate(divide="ignore"):
        log_model = np.log(P, out=np.zeros_like(P), where=used)
    floor = float(-(N * log_best).sum() / N.sum())
    return floor, (N * (log_best - log_model)).sum(axis=1) / N.sum()
