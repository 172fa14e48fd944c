"""The draft with two bugs fixed: the dots are still id 0, whatever stoi says."""

import numpy as np

EXPECT = "where the contract puts a dot"


def context_windows(
    words: list[str], stoi: dict[str, int], block_size: int
) -> tuple[np.ndarray, np.ndarray]:
    """The catalogued draft, as its file\'s docstring says."""
    X, Y = [], []
    for word in words:
        ids = [0] * block_size + [stoi[ch] for ch in word] + [0]
        X += [ids[t - block_size : t] for t in range(block_size, len(ids))]
        Y += ids[block_size : len(ids)]
    return np.array(X, dtype=np.int64).reshape(-1, block_size), np.array(Y, dtype=np.int64)
