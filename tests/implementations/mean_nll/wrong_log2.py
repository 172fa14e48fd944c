"""Bits instead of nats."""

import numpy as np

EXPECT = "in nats"


def mean_nll(probs, words, stoi):
    losses = []
    for word in words:
        chars = "." + word + "."
        for a, b in zip(chars, chars[1:]):
            losses.append(-np.log2(probs[stoi[a], stoi[b]]))
    return float(np.mean(losses))
