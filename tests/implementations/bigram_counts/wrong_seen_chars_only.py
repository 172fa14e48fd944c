"""Table sized by the characters that occur, not by stoi."""

import numpy as np

EXPECT = "a row and a column per symbol of stoi"


def bigram_counts(words, stoi):
    V = max(stoi[ch] for word in words for ch in word) + 1
    counts = np.zeros((V, V), dtype=np.int64)
    for word in words:
        chars = "." + word + "."
        for a, b in zip(chars, chars[1:]):
            counts[stoi[a], stoi[b]] += 1
    return counts
