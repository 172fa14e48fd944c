"""Cleans zeros into nan."""

import numpy as np

EXPECT = "nan"


def perplexity(token_probs):
    p = np.where(np.asarray(token_probs) == 0, np.nan, token_probs)
    return float(np.exp(np.mean(-np.log(p))))
