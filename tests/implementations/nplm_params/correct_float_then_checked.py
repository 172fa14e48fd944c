"""A float estimate (a root of the quadratic when d is None), then the candidate and its
neighbours checked with the integer count."""

import math

EXPECT = "pass"


def nplm_params(V, d, n, budget, direct=False, tied=False):
    if V <= 0 or (d is not None and d <= 0) or n <= 1:
        raise ValueError("bad shape")

    def count(dh):
        e = dh if d is None else d
        return (
            V * e + (n - 1) * e * dh + dh + (e if tied else V) * dh + V + direct * V * (n - 1) * e
        )

    if d is None:  # a quadratic: the float root, then checked
        a = (count(2) - 2 * count(1) + count(0)) // 2
        b = count(1) - count(0) - a
        dh = math.floor((-b + math.sqrt(b * b + 4 * a * max(budget - count(0), 0))) / (2 * a))
    else:
        slope = count(2) - count(1)
        dh = math.floor((budget - count(0)) / slope)
    while count(dh + 1) <= budget:
        dh += 1
    while dh >= 1 and count(dh) > budget:
        dh -= 1
    if dh < 1:
        raise ValueError("too small a budget")
    return dh
