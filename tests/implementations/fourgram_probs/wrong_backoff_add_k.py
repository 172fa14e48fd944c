"""Add-k (0.1) 4-gram rows for seen contexts, add-k trigram rows for unseen ones: still add-k
where the counts are thin, and behind the best add-k trigram at 3,000 names."""

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
    probs = None
    for n in range(2, 5):
        c = counts.sum(axis=tuple(range(4 - n)))
        smoothed = (c + 0.1) / (c + 0.1).sum(axis=-1, keepdims=True)
        seen = c.sum(axis=-1, keepdims=True)
        probs = smoothed if probs is None else np.where(seen > 0, smoothed, probs)
    return probs
