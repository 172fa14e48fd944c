"""Keeps the count strictly below the budget: a width that fits it exactly is refused."""

EXPECT = "one width too narrow"


def nplm_params(V, d, n, budget, direct=False, tied=False):
    if V < 1 or d < 1 or n < 2:
        raise ValueError("V, d >= 1 and n >= 2")
    x = (n - 1) * d
    fixed = V * d + V + (x * V if direct else 0)
    dh = (budget - fixed - 1) // (x + 1 + (d if tied else V))
    if dh < 1:
        raise ValueError("not even one hidden unit fits")
    return dh
