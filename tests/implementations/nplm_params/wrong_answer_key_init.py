"""The library's initialiser counted at two widths (plus the direct weights it never makes), the line through them inverted."""

import numpy as np

from proof_lm.nplm import init_nplm

EXPECT = "answer-key rule"


def nplm_params(V, d, n, budget, direct=False, tied=False):
    def count(dh):
        P = init_nplm(V, d, n - 1, dh, np.random.default_rng(0))
        return sum(np.size(v) for v in P.values() if v is not None) + (
            V * (n - 1) * d if direct else 0
        )

    slope = count(2) - count(1)
    return (budget - count(1) + slope) // slope
