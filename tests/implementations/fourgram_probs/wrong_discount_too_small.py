"""Absolute discounting interpolated down to the uniform with d = 0.1: a discount so small that
unseen continuations get almost nothing."""

import numpy as np

EXPECT = "the best add-k model"


def fourgram_probs(words, stoi):
    V = len(stoi)
    grams = []
    for word in words:
        if not set(word) <= stoi.keys():
            raise ValueError("a word holds a symbol stoi does not have")
        ids = [stoi["."]] * 3 + [stoi[ch] for ch in word] + [stoi["."]]
        grams += [ids[i - 3 : i + 1] for i in range(3, len(ids))]
    counts = np.zeros((V,) * 4)
    if grams:
        np.add.at(counts, tuple(np.array(grams).T), 1)
    probs = np.full(V, 1.0 / V)
    for n in range(1, 5):
        c = counts.sum(axis=tuple(range(4 - n)))
        seen = c.sum(axis=-1, keepdims=True)
        kinds = (c > 0).sum(axis=-1, keepdims=True)
        kept = (np.maximum(c - 0.1, 0) + 0.1 * kinds * probs) / np.maximum(seen, 1)
        probs = np.where(seen > 0, kept, probs)
    return probs
