"""Indexed assignment: a bigram repeated within one word is counted once."""

import numpy as np

EXPECT = "once per word"


def bigram_counts(words, stoi):
    counts = np.zeros((len(stoi), len(stoi)), dtype=np.int64)
    for word in words:
        ids = np.array([stoi[ch] for ch in "." + word + "."])
        counts[ids[:-1], ids[1:]] += 1
    return counts
