"""Add-k on the 4-gram counts with a k chosen on the course's own dev split (0.1)."""

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
    return (counts + 0.1) / (counts + 0.1).sum(axis=-1, keepdims=True)
