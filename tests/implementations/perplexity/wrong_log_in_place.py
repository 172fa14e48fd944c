"""Takes the log in place, overwriting the caller's float64 probabilities."""

import math

import numpy as np

EXPECT = "modified"


def perplexity(token_probs):
    p = np.asarray(token_probs, dtype=np.float64)
    if np.any(p == 0):
        return math.inf
    np.log(p, out=p)
    return float(np.exp(-p.mean()))
