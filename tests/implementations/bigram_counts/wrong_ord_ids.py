"""Ids computed from the letter instead of looked up in stoi."""

import numpy as np

EXPECT = "stoi"


def bigram_counts(words, stoi):
    V = len(stoi)
    counts = np.zeros((V, V), dtype=np.int64)
    for word in words:
        ids = [0] + [ord(ch) - ord("a") + 1 for ch in word] + [0]
        for a, b in zip(ids, ids[1:]):
            if a < V and b < V:
                counts[a, b] += 1
    return counts
