"""Logs taken in base 10, undone with exp: the two bases do not match."""

import math

import numpy as np

EXPECT = "base of the power"


def perplexity(token_probs):
    token_probs = np.asarray(token_probs, dtype=np.float64)
    if np.any(token_probs == 0):
        return math.inf
    return float(np.exp(-np.log10(token_probs).mean()))
