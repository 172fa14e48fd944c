"""The count as a function (of the width alone when d is None), inverted by bisection in
integers; NumPy integers returned."""

import numpy as np

EXPECT = "pass"


def nplm_params(V, d, n, budget, direct=False, tied=False):
    if V < 1 or (d is not None and d < 1) or n < 2:
        raise ValueError("no such model")

    def count(dh):
        d_ = dh if d is None else d
        embedding = V * d_
        hidden = (n - 1) * d_ * dh + dh
        output = (dh * d_ if tied else dh * V) + V
        return embedding + hidden + output + (V * (n - 1) * d_ if direct else 0)

    if count(1) > budget:
        raise ValueError("the budget is below one hidden unit's model")
    low, high = 1, 2
    while count(high) <= budget:
        low, high = high, high * 2
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if count(mid) <= budget else (low, mid)
    return np.int64(low)
