"""Witten-Bell interpolation of orders 4 to 1 and the uniform, counted in dicts, table filled by loops."""

from collections import Counter

import numpy as np

EXPECT = "pass"


def fourgram_probs(words, stoi):
    V = len(stoi)
    counts = [Counter() for _ in range(5)]  # counts[n][(context of n-1 ids, next)]
    for word in words:
        if any(ch not in stoi for ch in word):
            raise ValueError(f"{word!r} holds a symbol outside stoi")
        ids = [stoi["."]] * 3 + [stoi[ch] for ch in word] + [stoi["."]]
        for i in range(3, len(ids)):
            for n in range(1, 5):
                counts[n][tuple(ids[i - n + 1 : i + 1])] += 1
    totals = [Counter() for _ in range(5)]
    kinds = [Counter() for _ in range(5)]
    for n in range(1, 5):
        for gram, c in counts[n].items():
            totals[n][gram[:-1]] += c
            kinds[n][gram[:-1]] += 1
    table = np.empty((V,) * 4)
    for index in np.ndindex(*(V,) * 3):
        for d in range(V):
            p = 1.0 / V
            for n in range(1, 5):
                context = index[3 - (n - 1) :] if n > 1 else ()
                seen = totals[n][context]
                if seen:
                    t = kinds[n][context]
                    p = (counts[n][context + (d,)] + t * p) / (seen + t)
            table[index + (d,)] = p
    return table
