"""Counts one bias unit too many (dh + 1 instead of dh)."""

EXPECT = "got"


def nplm_params(V, d, n, dh, direct):
    return V * d + (n - 1) * d * dh + (dh + 1) + V * dh + V + (V * (n - 1) * d if direct else 0)
