"""Ignores direct."""

EXPECT = "the count without direct connections"


def nplm_params(V, d, n, budget, direct=False, tied=False):
    if V < 1 or d < 1 or n < 2:
        raise ValueError("V, d >= 1 and n >= 2")
    x = (n - 1) * d
    dh = (budget - V * d - V) // (x + 1 + (d if tied else V))
    if dh < 1:
        raise ValueError("not even one hidden unit fits")
    return dh
