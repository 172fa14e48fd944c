"""Factored form, numpy integer result."""

import numpy as np

EXPECT = "pass"


def nplm_params(V, d, n, dh, direct=False, tied=False):
    x = (n - 1) * d
    return np.int64(V * d + (x + 1) * dh + (dh * d if tied else dh * V) + V + direct * x * V)
