"""Only the start token."""

import numpy as np

EXPECT = "end token"


def bigram_counts(words, stoi):
    counts = np.zeros((len(stoi), len(stoi)), dtype=np.int64)
    for word in words:
        chars = "." + word
        for a, b in zip(chars, chars[1:]):
            counts[stoi[a], stoi[b]] += 1
    return counts
