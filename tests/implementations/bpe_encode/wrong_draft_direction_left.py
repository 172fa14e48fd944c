"""The draft with two bugs fixed: it still replaces right to left."""

import math

EXPECT = "replaced right to left"


def bpe_encode(text: str, merges: list[tuple[int, int]]) -> list[int]:
    """The catalogued draft, as its file\'s docstring says."""
    rank = {}  # pair -> its merge index
    for i, pair in enumerate(merges):
        rank.setdefault(tuple(pair), i)
    ids = list(text.encode("utf-8"))
    while len(ids) > 1:
        pair = min(zip(ids, ids[1:]), key=lambda p: rank.get(p, math.inf))  # merged next
        if pair not in rank:
            break  # no adjacent pair is a merge
        new, merged, i = 256 + rank[pair], [], len(ids) - 1
        while i >= 0:  # replace every occurrence, without overlap
            if i > 0 and (ids[i - 1], ids[i]) == pair:
                merged.append(new)
                i -= 2
            else:
                merged.append(ids[i])
                i -= 1
        ids = merged[::-1]
    return ids
