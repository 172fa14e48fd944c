"""Merges one occurrence at a time: the leftmost of the lowest-ranked pairs, until none applies."""

EXPECT = "pass"


def bpe_encode(text, merges):
    rank = {}
    for i, pair in enumerate(merges):
        rank.setdefault(tuple(pair), i)
    ids = [int(b) for b in bytearray(text, "utf-8")]
    while True:
        best = None
        for j in range(len(ids) - 1):
            r = rank.get((ids[j], ids[j + 1]))
            if r is not None and (best is None or r < best[0]):
                best = (r, j)
        if best is None:
            return ids
        r, j = best
        ids[j : j + 2] = [256 + r]
