"""The draft with two bugs fixed: it still merges the most frequent pair first."""

EXPECT = "the most frequent pair was merged first"


def bpe_encode(text: str, merges: list[tuple[int, int]]) -> list[int]:
    """The catalogued draft, as its file\'s docstring says."""
    rank = {}  # pair -> its merge index
    for i, pair in enumerate(merges):
        rank.setdefault(tuple(pair), i)
    ids = list(text.encode("utf-8"))
    while len(ids) > 1:
        pairs = list(zip(ids, ids[1:]))
        pair = max(pairs, key=lambda p: pairs.count(p) if p in rank else -1)  # merged next
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
