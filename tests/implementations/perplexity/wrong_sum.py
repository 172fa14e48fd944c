"""exp of the total."""

import numpy as np

EXPECT = "exp of a total"


def perplexity(token_probs):
    with np.errstate(divide="ignore", over="ignore"):
        return float(np.exp(np.sum(-np.log(token_probs))))
