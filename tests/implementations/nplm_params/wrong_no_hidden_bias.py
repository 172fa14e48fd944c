"""Forgets the hidden bias."""

EXPECT = "hidden layer's bias vector"


def nplm_params(V, d, n, budget, direct=False, tied=False):
    if V < 1 or d < 1 or n < 2:
        raise ValueError("V, d >= 1 and n >= 2")
    x = (n - 1) * d
    fixed = V * d + 1 * V + (x * V if direct else 0)
    dh = (budget - fixed) // (x + 0 + (d if tied else V))
    if dh < 1:
        raise ValueError("not even one hidden unit fits")
    return dh
