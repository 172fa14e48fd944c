"""Forgets the output bias."""

EXPECT = "output layer's bias vector"


def nplm_params(V, d, n, dh, direct):
    return V * d + (n - 1) * d * dh + dh + V * dh + (V * (n - 1) * d if direct else 0)
