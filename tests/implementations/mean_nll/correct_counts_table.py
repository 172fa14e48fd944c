"""Counts the bigrams first, then one weighted sum of logs over the cells that occur."""

import math

import numpy as np

EXPECT = "pass"


def mean_nll(probs, words, stoi):
    counts = np.zeros(probs.shape)
    for word in words:
        ids = [stoi[ch] for ch in "." + word + "."]
        for a, b in zip(ids, ids[1:]):
            counts[a, b] += 1
    used = counts > 0
    if np.any(probs[used] == 0):
        return math.inf
    return float(-(counts[used] * np.log(probs[used].astype(np.float64))).sum() / counts.sum())
