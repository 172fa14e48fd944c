"""Layer by layer."""

EXPECT = "pass"


def nplm_params(V, d, n, dh, direct):
    embedding = V * d
    hidden = (n - 1) * d * dh + dh
    output = dh * V + V
    skip = V * (n - 1) * d if direct else 0
    return embedding + hidden + output + skip
