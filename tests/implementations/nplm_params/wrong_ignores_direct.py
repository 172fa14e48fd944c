"""Ignores direct."""

EXPECT = "direct"


def nplm_params(V, d, n, dh, direct):
    return V * d + (n - 1) * d * dh + dh + V * dh + V
