"""Each gap as the row's loss under P minus its loss under the counts' rows: right in exact arithmetic, but near the floor the difference of two nearly equal losses keeps about two digits (measured: 2.8e-3 to 5.8e-3 off on 60x60 tables)."""

import numpy as np

EXPECT = "a difference of two nearly equal numbers loses the digits"


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
    best = np.where(rows > 0, N / np.maximum(rows, 1e-300), 1.0 / N.shape[1])
    with np.errstate(divide="ignore", invalid="ignore"):
        nll_best = np.where(N > 0, -N * np.log(np.where(N > 0, best, 1.0)), 0.0)
        nll_model = np.where(N > 0, -N * np.log(np.where(N > 0, P, 1.0) + 0.0), 0.0)
    nll_model = np.where((N > 0) & (P == 0), np.inf, nll_model)
    floor = nll_best.sum() / N.sum()
    return float(floor), (nll_model.sum(axis=1) - nll_best.sum(axis=1)) / N.sum()
