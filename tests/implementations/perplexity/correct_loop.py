"""Sum of logs in a loop."""

import math

EXPECT = "pass"


def perplexity(token_probs):
    total = 0.0
    for p in token_probs:
        if p == 0:
            return math.inf
        total += math.log(p)
    return math.exp(-total / len(token_probs))
