"""Works on the characters' code points instead of the UTF-8 bytes."""

EXPECT = "the merges are of the characters' code points"


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
    ids = [ord(ch) for ch in text]
    merges = []
    for i in range(vocab_size - 256):
        stats = {}
        for pair in zip(ids, ids[1:]):
            stats[pair] = stats.get(pair, 0) + 1
        if not stats:
            break
        best = max(stats, key=stats.get)
        if stats[best] < 2:
            break
        ids = merge(ids, best, 256 + i)
        merges.append(best)
    return merges
