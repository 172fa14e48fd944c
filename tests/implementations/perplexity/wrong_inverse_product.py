"""The equation solved through the product of the inverses: it overflows on long inputs."""

import numpy as np

EXPECT = "overflows"


def perplexity(token_probs):
    token_probs = np.asarray(token_probs, dtype=np.float64)
    if np.any(token_probs == 0):
        return float("inf")
    with np.errstate(over="ignore"):
        return float(np.prod(1.0 / token_probs) ** (1.0 / token_probs.size))
