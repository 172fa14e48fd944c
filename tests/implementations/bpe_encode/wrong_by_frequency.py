"""Merges the most frequent known pair first, as in training."""

EXPECT = "the most frequent pair was merged first"


def merge(ids, pair, new):
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(new)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def bpe_encode(text, merges):
    ranks = {tuple(pair): i for i, pair in enumerate(merges)}
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        stats = {}
        for p in zip(ids, ids[1:]):
            if p in ranks:
                stats[p] = stats.get(p, 0) + 1
        if not stats:
            break
        pair = max(stats, key=stats.get)
        ids = merge(ids, pair, 256 + ranks[pair])
    return ids
