"""math.fsum of the logs, in Python floats."""

import math

EXPECT = "pass"


def perplexity(token_probs):
    values = [float(p) for p in token_probs]
    if min(values) == 0:
        return math.inf
    return math.exp(-math.fsum(math.log(p) for p in values) / len(values))
