"""Takes the logs in float32 and returns a Python float: float32's precision is accepted."""

import math

import numpy as np

EXPECT = "pass"


def perplexity(token_probs):
    p = np.asarray(token_probs, dtype=np.float32)
    if np.any(p == 0):
        return math.inf
    return float(np.exp(-np.log(p).mean()))
