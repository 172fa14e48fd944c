"""The draft with its three bugs fixed: both boundaries, every occurrence counted, one row and
column per symbol of stoi."""

import numpy as np

EXPECT = "pass"


def bigram_counts(words: list[str], stoi: dict[str, int]) -> np.ndarray:
    sequences = [np.array([stoi[ch] for ch in "." + word + "."]) for word in words]
    V = len(stoi)
    counts = np.zeros((V, V), dtype=np.int64)
    for ids in sequences:
        np.add.at(counts, (ids[:-1], ids[1:]), 1)
    return counts
