"""Starts from code points instead of UTF-8 bytes."""

EXPECT = "the ids are the characters' code points"


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
    ids = [ord(ch) for ch in text]
    while len(ids) >= 2:
        pair = min(zip(ids, ids[1:]), key=lambda p: ranks.get(p, float("inf")))
        if pair not in ranks:
            break
        ids = merge(ids, pair, 256 + ranks[pair])
    return ids
