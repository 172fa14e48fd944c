"""Add-k at the order and k that do best on a fifth of the training words held out inside the
function: as good as add-k gets without the held-out names, and add-k all the same."""

import numpy as np

EXPECT = "the best add-k model"


def _table(words, stoi):
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
    return counts


def fourgram_probs(words, stoi):
    cut = len(words) * 4 // 5
    fit, check = _table(words[:cut], stoi), _table(words[cut:], stoi)
    best = None
    for n in range(1, 5):
        c = fit.sum(axis=tuple(range(4 - n)))
        held = check.sum(axis=tuple(range(4 - n)))
        for k in np.logspace(-3, 1, 41):
            p = (c + k) / (c + k).sum(axis=-1, keepdims=True)
            loss = -(held * np.log(p)).sum()
            if best is None or loss < best[0]:
                best = (loss, n, k)
    _, n, k = best
    c = _table(words, stoi).sum(axis=tuple(range(4 - n)))
    p = (c + k) / (c + k).sum(axis=-1, keepdims=True)
    return np.broadcast_to(p, (len(stoi),) * 4).copy()
