"""V*d + n*d*dh + V*dh."""

EXPECT = "how many symbols does a model of order n read"


def nplm_params(V, d, n, dh, direct):
    return V * d + n * d * dh + V * dh + (V * n * d if direct else 0)
