"""Tied: the map from h into the embedding space is forgotten."""

EXPECT = "without the map from the hidden layer"


def nplm_params(V, d, n, budget, direct=False, tied=False):
    if V < 1 or d < 1 or n < 2:
        raise ValueError("V, d >= 1 and n >= 2")
    x = (n - 1) * d
    fixed = V * d + V + (x * V if direct else 0)
    dh = (budget - fixed) // (x + 1 + (0 if tied else V))
    if dh < 1:
        raise ValueError("not even one hidden unit fits")
    return dh
