"""Right numbers, float dtype."""

import numpy as np

EXPECT = "int64"


def bigram_counts(words, stoi):
    counts = np.zeros((len(stoi), len(stoi)))
    for word in words:
        chars = "." + word + "."
        for a, b in zip(chars, chars[1:]):
            counts[stoi[a], stoi[b]] += 1
    return counts
