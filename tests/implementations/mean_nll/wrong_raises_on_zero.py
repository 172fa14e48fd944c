"""math.log(0) raises ValueError."""

import math

EXPECT = "ValueError"


def mean_nll(probs, words, stoi):
    total, n = 0.0, 0
    for word in words:
        chars = "." + word + "."
        for a, b in zip(chars, chars[1:]):
            total -= math.log(probs[stoi[a], stoi[b]])
            n += 1
    return total / n
