"""Loop over every prediction with math.log."""

import math

EXPECT = "pass"


def mean_nll(probs, words, stoi):
    total, n = 0.0, 0
    for word in words:
        chars = "." + word + "."
        for a, b in zip(chars, chars[1:]):
            p = probs[stoi[a], stoi[b]]
            if p == 0:
                return float("inf")
            total += -math.log(p)
            n += 1
    return total / n
