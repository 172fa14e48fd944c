"""Total instead of mean."""

import math

EXPECT = "total"


def mean_nll(probs, words, stoi):
    total = 0.0
    for word in words:
        chars = "." + word + "."
        for a, b in zip(chars, chars[1:]):
            p = probs[stoi[a], stoi[b]]
            total += -math.log(p) if p > 0 else math.inf
    return total
