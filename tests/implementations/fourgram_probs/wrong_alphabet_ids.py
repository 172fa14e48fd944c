"""Witten-Bell, but the table is indexed by each letter's place in the alphabet, not by stoi."""

import numpy as np

EXPECT = "stoi"


def fourgram_probs(words, stoi):
    V = len(stoi)
    letters = sorted(ch for ch in stoi if ch != ".")
    place = {".": 0, **{ch: i + 1 for i, ch in enumerate(letters)}}
    grams = []
    for word in words:
        if not set(word) <= stoi.keys():
            raise ValueError("a word holds a symbol stoi does not have")
        ids = [0] * 3 + [place[ch] for ch in word] + [0]
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
