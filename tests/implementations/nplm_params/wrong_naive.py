"""V*d + n*d*dh + V*dh."""

EXPECT = "n - 1 words"


def nplm_params(V, d, n, dh, direct):
    return V * d + n * d * dh + V * dh + (V * n * d if direct else 0)
