"""Rows and columns swapped."""

import numpy as np

EXPECT = "swapped"


def bigram_counts(words, stoi):
    counts = np.zeros((len(stoi), len(stoi)), dtype=np.int64)
    for word in words:
        chars = "." + word + "."
        for a, b in zip(chars, chars[1:]):
            counts[stoi[b], stoi[a]] += 1
    return counts
