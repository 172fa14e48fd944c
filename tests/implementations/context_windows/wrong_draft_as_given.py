"""The draft handed out in chapter 03: three bugs (the dot's id, one stream for all names, the last example dropped)."""

import numpy as np

EXPECT = "closing '.' included"


def context_windows(
    words: list[str], stoi: dict[str, int], block_size: int
) -> tuple[np.ndarray, np.ndarray]:
    """The catalogued draft, as its file\'s docstring says."""
    ids = [0] * block_size
    for word in words:
        ids += [stoi[ch] for ch in word] + [0]
    X = [ids[t - block_size : t] for t in range(block_size, len(ids) - 1)]
    Y = ids[block_size : len(ids) - 1]
    return np.array(X, dtype=np.int64).reshape(-1, block_size), np.array(Y, dtype=np.int64)
