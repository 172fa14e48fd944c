"""Witten-Bell that skips a symbol stoi does not have instead of raising."""

import numpy as np

EXPECT = "a word holds a symbol stoi does not have"


def fourgram_probs(words, stoi):
    V = len(stoi)
    grams = []
    for word in words:
        ids = [stoi["."]] * 3 + [stoi[ch] for ch in word if ch in stoi] + [stoi["."]]
        grams += [ids[i - 3 : i + 1] for i in range(3, len(ids))]
    counts = np.zeros((V,) * 4)
    if grams:
        np.add.at(counts, tuple(np.array(grams).T), 1)
    probs = np.full(V, 1.0 / V)
    for n in range(1, 5):
        c = counts.sum(axis=tuple(range(4 - n)))
        seen = c.sum(axis=-1, keepdims=True)
        kinds = (c > 0).sum(axis=-1, keepdims=True)
        probs = np.where(seen > 0, (c + kinds * probs) / np.maximum(seen + kinds, 1), probs)
    return probs
