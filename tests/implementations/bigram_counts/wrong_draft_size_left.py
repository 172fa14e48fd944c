"""The draft with two bugs fixed: the table is still sized by the ids that occur, not by stoi."""

import numpy as np

EXPECT = "a row and a column per symbol of stoi"


def bigram_counts(words: list[str], stoi: dict[str, int]) -> np.ndarray:
    sequences = [np.array([stoi[ch] for ch in "." + word + "."]) for word in words]
    V = max(ids.max() for ids in sequences) + 1
    counts = np.zeros((V, V), dtype=np.int64)
    for ids in sequences:
        np.add.at(counts, (ids[:-1], ids[1:]), 1)
    return counts
