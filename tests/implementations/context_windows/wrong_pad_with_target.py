"""Windows include the target: block_size + 1 columns."""

import numpy as np

EXPECT = "shape"


def context_windows(words, stoi, block_size):
    rows, Y = [], []
    for w in words:
        ids = [stoi[c] for c in "." * block_size + w + "."]
        for i in range(len(w) + 1):
            rows.append(ids[i : i + block_size + 1])
            Y.append(ids[i + block_size])
    return np.array(rows, dtype=np.int64), np.array(Y, dtype=np.int64)
