"""Returns the mean NLL."""

import numpy as np

EXPECT = "not the perplexity"


def perplexity(token_probs):
    with np.errstate(divide="ignore"):
        return float(np.mean(-np.log(token_probs)))
