"""The context is never reset between words."""

import numpy as np

EXPECT = "of the name before it"


def context_windows(words, stoi, block_size):
    X, Y = [], []
    context = [0] * block_size
    for w in words:
        for ch in w + ".":
            X.append(context)
            Y.append(stoi[ch])
            context = context[1:] + [stoi[ch]]
    return np.array(X, dtype=np.int64).reshape(-1, block_size), np.array(Y, dtype=np.int64)
