"""Forgets to wrap words in '.'."""

import numpy as np

EXPECT = "boundary"


def bigram_counts(words, stoi):
    counts = np.zeros((len(stoi), len(stoi)), dtype=np.int64)
    for word in words:
        for a, b in zip(word, word[1:]):
            counts[stoi[a], stoi[b]] += 1
    return counts
