"""The draft handed out in chapter 09: three bugs (frequency, direction, duplicate)."""

EXPECT = "the most frequent pair was merged first"


def bpe_encode(text: str, merges: list[tuple[int, int]]) -> list[int]:
    """The catalogued draft, as its file\'s docstring says."""
    rank = {tuple(pair): i for i, pair in enumerate(merges)}  # pair -> its merge index
    ids = list(text.encode("utf-8"))
    while len(ids) > 1:
        pairs = list(zip(ids, ids[1:]))
        pair = max(pairs, key=lambda p: pairs.count(p) if p in rank else -1)  # merged next
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
