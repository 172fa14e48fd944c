"""The count is affine in dh: what dh multiplies, and what it does not, then a floor division; with
d None a quadratic, its root's floor by math.isqrt, then corrected by the count itself."""

import math

EXPECT = "pass"


def nplm_params(V, d, n, budget, direct=False, tied=False):
    if V < 1 or (d is not None and d < 1) or n < 2:
        raise ValueError("V, d >= 1 and n >= 2")
    if d is None:
        a, b, c = n - 1 + tied, V + 1 + (not tied) * V + direct * (n - 1) * V, V
        if a + b + c > budget:
            raise ValueError("not even one hidden unit fits")
        w = (math.isqrt(b * b + 4 * a * (budget - c)) - b) // (2 * a)
        while a * (w + 1) ** 2 + b * (w + 1) + c <= budget:
            w += 1
        while a * w * w + b * w + c > budget:
            w -= 1
        return w
    x = (n - 1) * d
    fixed = V * d + V + (x * V if direct else 0)
    per_unit = x + 1 + (d if tied else V)
    dh = (budget - fixed) // per_unit
    if dh < 1:
        raise ValueError("not even one hidden unit fits")
    return dh
