"""d None solved by the quadratic formula in float64, unchecked: one parameter short of a width's
count past 2**53, the float root rounds up to that width."""

import math

EXPECT = "which integers does a float64 hold?"


def nplm_params(V, d, n, budget, direct=False, tied=False):
    if V < 1 or (d is not None and d < 1) or n < 2:
        raise ValueError("V, d >= 1 and n >= 2")
    if d is None:
        a, b, c = n - 1 + tied, V + 1 + (not tied) * V + direct * (n - 1) * V, V
        w = math.floor((-b + math.sqrt(max(b * b + 4 * a * (budget - c), 0))) / (2 * a))
        if w < 1:
            raise ValueError("not even one hidden unit fits")
        return w
    x = (n - 1) * d
    fixed = V * d + V + (x * V if direct else 0)
    dh = (budget - fixed) // (x + 1 + (d if tied else V))
    if dh < 1:
        raise ValueError("not even one hidden unit fits")
    return dh
