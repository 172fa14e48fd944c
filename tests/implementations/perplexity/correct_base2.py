"""2 ** (mean bits) is the same number."""

import numpy as np

EXPECT = "pass"


def perplexity(token_probs):
    with np.errstate(divide="ignore"):
        bits = -np.log2(np.asarray(token_probs, dtype=float))
    return float(2.0 ** bits.mean())
