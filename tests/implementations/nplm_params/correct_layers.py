"""Layer by layer."""

EXPECT = "pass"


def nplm_params(V, d, n, dh, direct, tied=False):
    embedding = V * d
    hidden = (n - 1) * d * dh + dh
    output = (dh * d if tied else dh * V) + V  # tied: the map into E's space, then E itself
    skip = V * (n - 1) * d if direct else 0
    return embedding + hidden + output + skip
