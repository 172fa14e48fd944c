"""Witten-Bell on the training words plus the whole corpus read with load_names(): the corpus's
letters are not renamed as the training and held-out names are, so its counts mislead."""

import numpy as np

from proof_lm.corpus import load_names

EXPECT = "the best add-k model"


def fourgram_probs(words, stoi):
    V = len(stoi)
    grams = []
    for word in words:
        if not set(word) <= stoi.keys():
            raise ValueError("a word holds a symbol stoi does not have")
    corpus = load_names() if len(stoi) == 27 else []
    for word in list(words) + corpus:
        ids = [stoi["."]] * 3 + [stoi[ch] for ch in word] + [stoi["."]]
        grams += [ids[i - 3 : i + 1] for i in range(3, len(ids))]
    counts = np.zeros((V,) * 4)
    np.add.at(counts, tuple(np.array(grams).T), 1)
    probs = np.full(V, 1.0 / V)
    for n in range(1, 5):
        c = counts.sum(axis=tuple(range(4 - n)))
        seen = c.sum(axis=-1, keepdims=True)
        kinds = (c > 0).sum(axis=-1, keepdims=True)
        probs = np.where(seen > 0, (c + kinds * probs) / np.maximum(seen + kinds, 1), probs)
    return probs
