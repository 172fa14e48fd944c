"""Each gap as the difference of two row losses, in decimals (28 digits): a difference of two
nearly equal numbers keeps its digits there, so it would pass without the relative entropy. A
NumPy exercise's sandbox has no decimals."""

from decimal import Decimal

import numpy as np

EXPECT = "arbitrary-precision arithmetic"


def loss_floor_and_gaps(N, P):
    N, P = np.asarray(N, dtype=np.float64), np.asarray(P, dtype=np.float64)
    if N.ndim != 2 or N.shape[0] != N.shape[1] or P.shape != N.shape:
        raise ValueError("N and P must both be (V, V)")
    if (N < 0).any() or N.sum() == 0:
        raise ValueError("counts must be non-negative, at least one pair")
    if (P < 0).any() or not np.allclose(P.sum(axis=1), 1, rtol=0, atol=1e-6):
        raise ValueError("rows of P must be distributions")
    total = Decimal(float(N.sum()))
    floor = Decimal(0)
    gaps = []
    for a in range(N.shape[0]):
        row = Decimal(float(N[a].sum()))
        best = Decimal(0)
        model = Decimal(0)
        inf = False
        for b in range(N.shape[1]):
            n = Decimal(float(N[a, b]))
            if n == 0:
                continue
            best -= n * (n / row).ln()
            if P[a, b] == 0:
                inf = True
                continue
            model -= n * Decimal(float(P[a, b])).ln()
        floor += best
        gaps.append(float("inf") if inf else float((model - best) / total))
    return float(floor / total), np.array(gaps)
