"""A float64 quotient, then lowered while its count is over the budget, never raised: past 2**53 a
float64 rounds some widths down, and at the budget they fit exactly the answer stays too narrow."""

import math

EXPECT = "past 2**53"


def nplm_params(V, d, n, budget, direct=False, tied=False):
    if V < 1 or d < 1 or n < 2:
        raise ValueError("V, d >= 1 and n >= 2")
    x = (n - 1) * d
    fixed = V * d + V + (x * V if direct else 0)
    per = x + 1 + (d if tied else V)
    dh = math.floor((budget - fixed) / per)
    while dh >= 1 and fixed + per * dh > budget:
        dh -= 1
    if dh < 1:
        raise ValueError("not even one hidden unit fits")
    return dh
