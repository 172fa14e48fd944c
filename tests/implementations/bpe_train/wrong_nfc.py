"""Normalises the text (NFC) before counting its bytes."""

import unicodedata
from collections import Counter

EXPECT = "normalised before training"


def bpe_train(text, vocab_size):
    if vocab_size < 256:
        raise ValueError(f"vocab_size {vocab_size} < 256")
    ids = list(unicodedata.normalize("NFC", text).encode())
    merges = []
    while len(merges) < vocab_size - 256:
        common = Counter(zip(ids, ids[1:])).most_common(1)
        if not common or common[0][1] < 2:
            break
        (pair, _), new = common[0], 256 + len(merges)
        merged, skip = [], False
        for i, token in enumerate(ids):
            if skip:
                skip = False
            elif i + 1 < len(ids) and (token, ids[i + 1]) == pair:
                merged.append(new)
                skip = True
            else:
                merged.append(token)
        ids = merged
        merges.append(pair)
    return merges
