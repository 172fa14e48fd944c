"""Tracks each pair's count and first position, and picks by (count, -first position)."""

import numpy as np

EXPECT = "pass"


def bpe_train(text, vocab_size):
    if vocab_size < 256:
        raise ValueError("need vocab_size >= 256")
    ids = np.frombuffer(text.encode("utf-8"), dtype=np.uint8).astype(np.int64).tolist()
    merges = []
    for new in range(256, vocab_size):
        count, first = {}, {}
        for i in range(len(ids) - 1):
            pair = (ids[i], ids[i + 1])
            count[pair] = count.get(pair, 0) + 1
            first.setdefault(pair, i)
        if not count or max(count.values()) < 2:
            break
        pair = max(count, key=lambda p: (count[p], -first[p]))
        out, i = [], 0
        while i < len(ids):
            if ids[i : i + 2] == list(pair):
                out.append(new)
                i += 2
            else:
                out.append(ids[i])
                i += 1
        ids = out
        merges.append((int(pair[0]), int(pair[1])))
    return merges
