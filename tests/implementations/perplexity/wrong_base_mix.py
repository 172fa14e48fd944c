"""2 ** (mean of natural logs)."""

import numpy as np

EXPECT = "base of the power"


def perplexity(token_probs):
    with np.errstate(divide="ignore"):
        return float(2 ** np.mean(-np.log(token_probs)))
