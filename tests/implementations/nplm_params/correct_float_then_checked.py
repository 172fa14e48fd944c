"""A float estimate, then the candidate and its neighbours checked with the integer count."""

import math

EXPECT = "pass"


def nplm_params(V, d, n, budget, direct=False, tied=False):
    if V <= 0 or d <= 0 or n <= 1:
        raise ValueError("bad shape")

    def count(dh):
        return (
            V * d + (n - 1) * d * dh + dh + (d if tied else V) * dh + V + direct * V * (n - 1) * d
        )

    slope = count(2) - count(1)
    dh = math.floor((budget - count(0)) / slope)
    while count(dh + 1) <= budget:
        dh += 1
    while dh >= 1 and count(dh) > budget:
        dh -= 1
    if dh < 1:
        raise ValueError("too small a budget")
    return dh
