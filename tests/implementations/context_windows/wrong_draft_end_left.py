"""The draft with two bugs fixed: each name's last example (its closing '.') is still dropped."""

import numpy as np

EXPECT = "closing '.' included"


def context_windows(
    words: list[str], stoi: dict[str, int], block_size: int
) -> tuple[np.ndarray, np.ndarray]:
    """The catalogued draft, as its file\'s docstring says."""
    X, Y = [], []
    for word in words:
        ids = [stoi["."]] * block_size + [stoi[ch] for ch in word] + [stoi["."]]
        X += [ids[t - block_size : t] for t in range(block_size, len(ids) - 1)]
        Y += ids[block_size : len(ids) - 1]
    return np.array(X, dtype=np.int64).reshape(-1, block_size), np.array(Y, dtype=np.int64)
