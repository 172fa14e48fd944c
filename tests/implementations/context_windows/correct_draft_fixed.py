"""The draft with its three bugs fixed."""

import numpy as np

EXPECT = "pass"


def context_windows(
    words: list[str], stoi: dict[str, int], block_size: int
) -> tuple[np.ndarray, np.ndarray]:
    """The catalogued draft, as its file\'s docstring says."""
    contexts, targets = [], []
    for word in words:
        context = [stoi["."]] * block_size  # the dots before a name
        for ch in word + ".":
            contexts.append(context)  # block_size ids
            targets.append(stoi[ch])
            context = context[1:] + [stoi[ch]]  # slide: drop the oldest, add ch
    X = np.array(contexts, dtype=np.int64).reshape(-1, block_size)
    return X, np.array(targets, dtype=np.int64)
