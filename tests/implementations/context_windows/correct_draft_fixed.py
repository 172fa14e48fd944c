"""The draft with its three bugs fixed."""

import numpy as np

EXPECT = "pass"


def context_windows(
    words: list[str], stoi: dict[str, int], block_size: int
) -> tuple[np.ndarray, np.ndarray]:
    """The catalogued draft, as its file\'s docstring says."""
    X, Y = [], []
    for word in words:
        ids = [stoi["."]] * block_size + [stoi[ch] for ch in word] + [stoi["."]]
        X += [ids[t - block_size : t] for t in range(block_size, len(ids))]
        Y += ids[block_size : len(ids)]
    return np.array(X, dtype=np.int64).reshape(-1, block_size), np.array(Y, dtype=np.int64)
