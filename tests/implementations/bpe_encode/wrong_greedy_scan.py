"""One left-to-right scan that merges any known pair it meets, then rescans: ignores the merge order."""

EXPECT = "in the order they were learned"


def bpe_encode(text, merges):
    ranks = {tuple(p): 256 + i for i, p in enumerate(merges)}
    ids = list(text.encode("utf-8"))
    changed = True
    while changed:
        changed, out, i = False, [], 0
        while i < len(ids):
            if i + 1 < len(ids) and (ids[i], ids[i + 1]) in ranks:
                out.append(ranks[(ids[i], ids[i + 1])])
                i += 2
                changed = True
            else:
                out.append(ids[i])
                i += 1
        ids = out
    return ids
