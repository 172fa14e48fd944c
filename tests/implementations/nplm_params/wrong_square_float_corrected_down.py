"""d None by the quadratic formula with the discriminant in float64, corrected downwards only:
at a budget a width fits exactly the float root can land one width below, which no downward
correction undoes (a red team's: 86 seeds of 100 passed before that case was drawn)."""

import math

EXPECT = "which integers does a float64 hold?"


def _lin(V, d, n, budget, direct, tied):
    x = (n - 1) * d
    fixed = V * d + V + (x * V if direct else 0)
    dh = (budget - fixed) // (x + 1 + (d if tied else V))
    if dh < 1:
        raise ValueError("not even one hidden unit fits")
    return dh


def _abc(V, n, direct, tied):
    return n - 1 + tied, V + 1 + (not tied) * V + direct * (n - 1) * V, V


def _q(a, b, c, w):
    return a * w * w + b * w + c


def nplm_params(V, d, n, budget, direct=False, tied=False):
    if V < 1 or (d is not None and d < 1) or n < 2:
        raise ValueError("bad")
    if d is not None:
        return _lin(V, d, n, budget, direct, tied)
    a, b, c = _abc(V, n, direct, tied)
    if _q(a, b, c, 1) > budget:
        raise ValueError("nothing fits")
    D = float(b) * b + 4.0 * a * (float(budget) - c)
    w = math.floor((-b + math.sqrt(D)) / (2 * a))
    while _q(a, b, c, w) > budget:
        w -= 1
    return w
