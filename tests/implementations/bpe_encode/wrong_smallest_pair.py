"""Takes the numerically smallest known pair instead of the lowest merge index."""

EXPECT = "chosen by the values of its ids"


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
        known = [p for p in zip(ids, ids[1:]) if p in ranks]
        if not known:
            break
        pair = min(known)
        ids = merge(ids, pair, 256 + ranks[pair])
    return ids
