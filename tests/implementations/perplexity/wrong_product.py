"""Geometric mean by multiplying: underflows on long inputs."""

import numpy as np

EXPECT = "underflow"


def perplexity(token_probs):
    with np.errstate(all="ignore"):
        return float(np.prod(token_probs) ** (-1.0 / len(token_probs)))
