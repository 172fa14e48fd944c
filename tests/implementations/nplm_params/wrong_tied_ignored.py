"""Counts the untied output layer whatever `tied` says."""

EXPECT = "the count is the untied model's"


def nplm_params(V, d, n, dh, direct, tied=False):
    x = (n - 1) * d
    return V * d + x * dh + dh + dh * V + V + (x * V if direct else 0)
