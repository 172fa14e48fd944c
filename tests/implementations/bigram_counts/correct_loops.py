"""A double loop with a dictionary lookup per character."""

import numpy as np

EXPECT = "pass"


def bigram_counts(words, stoi):
    counts = np.zeros((len(stoi), len(stoi)), dtype=np.int64)
    for word in words:
        chars = "." + word + "."
        for a, b in zip(chars, chars[1:]):
            counts[stoi[a], stoi[b]] += 1
    return counts
