"""One-hot rows for previous and next ids, counted by an einsum of their outer products."""

import numpy as np

EXPECT = "pass"


def bigram_counts(words, stoi):
    V = len(stoi)
    prev, nxt = [], []
    for word in words:
        ids = [stoi[ch] for ch in "." + word + "."]
        prev += ids[:-1]
        nxt += ids[1:]
    eye = np.eye(V, dtype=np.int64)
    return np.einsum("bi,bj->ij", eye[prev], eye[nxt]).astype(np.int64)
