"""n instead of n - 1, biases counted."""

EXPECT = "a model of order n reads n - 1"


def nplm_params(V, d, n, dh, direct):
    return V * d + n * d * dh + dh + V * dh + V + (V * n * d if direct else 0)
