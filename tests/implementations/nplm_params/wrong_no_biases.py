"""Forgets both biases."""

EXPECT = "both layers' bias vectors"


def nplm_params(V, d, n, dh, direct):
    return V * d + (n - 1) * d * dh + V * dh + (V * (n - 1) * d if direct else 0)
