"""Vectorised: one bincount over flattened pair indices, with a helper function."""

import numpy as np

EXPECT = "pass"


def _ids(word, stoi):
    return [stoi[ch] for ch in "." + word + "."]


def bigram_counts(words, stoi):
    V = len(stoi)
    firsts, seconds = [], []
    for word in words:
        ids = _ids(word, stoi)
        firsts += ids[:-1]
        seconds += ids[1:]
    flat = np.array(firsts, dtype=np.int64) * V + np.array(seconds, dtype=np.int64)
    return np.bincount(flat, minlength=V * V).reshape(V, V)
