"""Ids from the letter, not from stoi."""

import numpy as np

EXPECT = "differ"


def context_windows(words, stoi, block_size):
    X, Y = [], []
    for w in words:
        context = [stoi["."]] * block_size
        for ch in w + ".":
            ix = 0 if ch == "." else ord(ch) - 96
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]
    return np.array(X, dtype=np.int64).reshape(-1, block_size), np.array(Y, dtype=np.int64)
