"""The library's initialiser, counted (plus the direct weights it never makes)."""

import numpy as np

from proof_lm.nplm import init_nplm

EXPECT = "answer-key rule"


def nplm_params(V, d, n, dh, direct):
    P = init_nplm(V, d, n - 1, dh, np.random.default_rng(0))
    return int(sum(np.size(v) for v in P.values() if v is not None)) + (
        V * (n - 1) * d if direct else 0
    )
