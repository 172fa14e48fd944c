"""The draft with two bugs fixed: a pair listed twice still takes its later index."""

import math

EXPECT = "took its later index"


def bpe_encode(text: str, merges: list[tuple[int, int]]) -> list[int]:
    """The catalogued draft, as its file\'s docstring says."""
    rank = {tuple(pair): i for i, pair in enumerate(merges)}  # pair -> its merge index
    ids = list(text.encode("utf-8"))
    while len(ids) > 1:
        pair = min(zip(ids, ids[1:]), key=lambda p: rank.get(p, math.inf))  # merged next
        if pair not in rank:
            break  # no adjacent pair is a merge
        new, merged, i = 256 + rank[pair], [], 0
        while i < len(ids):  # replace every occurrence, without overlap
            if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
                merged.append(new)
                i += 2
            else:
                merged.append(ids[i])
                i += 1
        ids = merged
    return ids
