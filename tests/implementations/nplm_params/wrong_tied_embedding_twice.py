"""Tied: counts E.T as new weights beside E."""

EXPECT = "holds the embedding table twice"


def nplm_params(V, d, n, dh, direct, tied=False):
    x = (n - 1) * d
    output = dh * d + d * V if tied else dh * V
    return V * d + x * dh + dh + output + V + (x * V if direct else 0)
