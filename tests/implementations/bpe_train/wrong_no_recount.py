"""Counts the pairs once, before the first merge, and takes the top ones."""

EXPECT = "stale counts"


def merge(ids, pair, new):
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            out.append(new)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def bpe_train(text, vocab_size):
    if vocab_size < 256:
        raise ValueError("vocab_size must be at least 256")
    ids = list(text.encode("utf-8"))
    merges = []
    stats = {}
    for pair in zip(ids, ids[1:]):
        stats[pair] = stats.get(pair, 0) + 1
    for i in range(vocab_size - 256):
        stats = {p: c for p, c in stats.items() if p not in merges}
        if not stats:
            break
        best = max(stats, key=stats.get)
        if stats[best] < 2:
            break
        ids = merge(ids, best, 256 + i)
        merges.append(best)
    return merges
