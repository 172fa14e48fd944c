"""Forgets the final '.' target."""

import numpy as np

EXPECT = "closing '.' included"


def context_windows(words, stoi, block_size):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w:
            X.append(context)
            Y.append(stoi[ch])
            context = context[1:] + [stoi[ch]]
    return np.array(X, dtype=np.int64).reshape(-1, block_size), np.array(Y, dtype=np.int64)
