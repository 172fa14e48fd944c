"""Pad each word with block_size dots and slide a window over it."""

import numpy as np

EXPECT = "pass"


def context_windows(words, stoi, block_size):
    rows = []
    for w in words:
        ids = np.array([stoi[c] for c in "." * block_size + w + "."])
        rows.append(np.lib.stride_tricks.sliding_window_view(ids, block_size + 1))
    windows = np.concatenate(rows).astype(np.int64)
    return windows[:, :-1].copy(), windows[:, -1].copy()
