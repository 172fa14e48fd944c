"""Weights by p*log p, so a zero probability gives nan instead of inf."""

import numpy as np

EXPECT = "nan"


def mean_nll(probs, words, stoi):
    losses = []
    for word in words:
        chars = "." + word + "."
        for a, b in zip(chars, chars[1:]):
            p = probs[stoi[a], stoi[b]]
            losses.append(-np.log(p) * (p / p))
    return float(np.mean(losses))
