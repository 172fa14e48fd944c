"""Interpolated Kneser-Ney (d = 0.75), which appends "" to the caller's list when it is empty."""

import numpy as np

EXPECT = "was modified"


def _counts(words, stoi):
    V = len(stoi)
    counts = np.zeros((V,) * 4)
    grams = []
    for word in words:
        if any(ch not in stoi for ch in word):
            raise ValueError(f"{word!r} holds a symbol outside stoi")
        ids = [stoi["."]] * 3 + [stoi[ch] for ch in word] + [stoi["."]]
        grams += [ids[i - 3 : i + 1] for i in range(3, len(ids))]
    if grams:
        np.add.at(counts, tuple(np.array(grams).T), 1)
    return counts


def fourgram_probs(words, stoi, d=0.75):
    V = len(stoi)
    if not words:
        words.append("")  # no empty count table
    c4 = _counts(words, stoi)
    tables = {4: c4}
    for n in (3, 2, 1):  # continuation counts: distinct symbols preceding
        tables[n] = (tables[n + 1] > 0).sum(axis=0).astype(float)
    probs = np.full(V, 1.0 / V)
    for n in range(1, 5):
        c = tables[n]
        tot = c.sum(axis=-1, keepdims=True)
        types = (c > 0).sum(axis=-1, keepdims=True)
        p = (np.maximum(c - d, 0) + d * types * probs) / np.maximum(tot, 1e-300)
        probs = np.where(tot > 0, p, probs)
    return np.broadcast_to(probs, (V,) * 4).copy()
