"""Tied: the map from h into the embedding space is forgotten."""

EXPECT = "leaves out the map from the hidden layer"


def nplm_params(V, d, n, dh, direct, tied=False):
    x = (n - 1) * d
    output = 0 if tied else dh * V
    return V * d + x * dh + dh + output + V + (x * V if direct else 0)
