"""Maximum likelihood for seen contexts, uniform rows for unseen ones: unseen continuations get 0."""

import numpy as np

EXPECT = "probability 0"


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
    seen = counts.sum(axis=-1, keepdims=True)
    return np.where(seen > 0, counts / np.maximum(seen, 1), 1.0 / len(stoi))
