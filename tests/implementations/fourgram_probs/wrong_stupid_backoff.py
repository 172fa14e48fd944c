"""Stupid back-off (0.4 times the shorter context's score for an unseen continuation): scores,
not probabilities; its rows do not sum to 1."""

import numpy as np

EXPECT = "sums to"


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
    scores = np.full(len(stoi), 1.0 / len(stoi))
    for n in range(1, 5):
        c = counts.sum(axis=tuple(range(4 - n)))
        seen = c.sum(axis=-1, keepdims=True)
        own = c / np.maximum(seen, 1)
        scores = np.where(c > 0, own, 0.4 * scores)
    return scores
