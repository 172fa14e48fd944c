"""Row by row with Python loops and math.log: each row's entropy and relative entropy."""

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
    import math

    N, P = _check(N, P)
    total = N.sum()
    floor, gaps = 0.0, np.zeros(len(N))
    for i in range(len(N)):
        n = N[i].sum()
        if n == 0:
            continue
        for j in range(len(N)):
            if N[i, j] > 0:
                p_hat = N[i, j] / n
                floor -= N[i, j] * math.log(p_hat) / total
                gaps[i] += math.inf if P[i, j] == 0 else N[i, j] * math.log(p_hat / P[i, j]) / total
    return floor, gaps
