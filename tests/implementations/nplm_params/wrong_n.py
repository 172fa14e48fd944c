"""n symbols of context instead of n - 1."""

EXPECT = "a model of order n reads n - 1"


def nplm_params(V, d, n, budget, direct=False, tied=False):
    if V < 1 or d < 1 or n < 2:
        raise ValueError("V, d >= 1 and n >= 2")
    x = n * d
    fixed = V * d + V + (x * V if direct else 0)
    dh = (budget - fixed) // (x + 1 + (d if tied else V))
    if dh < 1:
        raise ValueError("not even one hidden unit fits")
    return dh
