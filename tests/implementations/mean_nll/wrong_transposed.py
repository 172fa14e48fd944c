"""Reads probs[next, previous]."""

import math

EXPECT = "swapped"


def mean_nll(probs, words, stoi):
    total, n = 0.0, 0
    for word in words:
        chars = "." + word + "."
        for a, b in zip(chars, chars[1:]):
            p = probs[stoi[b], stoi[a]]
            total += -math.log(p) if p > 0 else math.inf
            n += 1
    return total / n
