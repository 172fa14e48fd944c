"""Counts each pair as the number of replacements its merge would make: in 'aaa', (a, a) once."""

EXPECT = "without overlap"


def bpe_train(text, vocab_size):
    if vocab_size < 256:
        raise ValueError("vocab_size must be >= 256")
    ids = list(text.encode("utf-8"))
    merges = []
    while len(merges) < vocab_size - 256:
        stats, free_from = {}, {}
        for i in range(len(ids) - 1):
            pair = (ids[i], ids[i + 1])
            if i >= free_from.get(pair, 0):  # not overlapping the last one counted
                stats[pair] = stats.get(pair, 0) + 1
                free_from[pair] = i + 2
        if not stats or max(stats.values()) < 2:
            break
        pair = max(stats, key=stats.get)
        out, i = [], 0
        while i < len(ids):
            if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
                out.append(256 + len(merges))
                i += 2
            else:
                out.append(ids[i])
                i += 1
        ids = out
        merges.append(pair)
    return merges
