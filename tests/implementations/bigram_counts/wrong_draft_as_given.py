"""The draft as handed out: the start boundary missing, a repeated pair counted once per word, and
the table sized by the ids that occur."""

import numpy as np

EXPECT = "the start token is missing"


def bigram_counts(words: list[str], stoi: dict[str, int]) -> np.ndarray:
    """A colleague's bigram_counts: it runs, and it is wrong (three bugs)."""
    sequences = [np.array([stoi[ch] for ch in word + "."]) for word in words]
    V = max(ids.max() for ids in sequences) + 1
    counts = np.zeros((V, V), dtype=np.int64)
    for ids in sequences:
        counts[ids[:-1], ids[1:]] += 1
    return counts
