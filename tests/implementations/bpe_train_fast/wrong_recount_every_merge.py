"""The draft's design, bugs fixed: every pair counted again and the sequence rebuilt after each merge."""

EXPECT = "too slow"


def bpe_train_fast(text, vocab_size):
    if vocab_size < 256:
        raise ValueError("x")
    ids = list(text.encode("utf-8"))
    merges = []
    while len(merges) < vocab_size - 256:
        counts = {}
        for pair in zip(ids, ids[1:]):
            counts[pair] = counts.get(pair, 0) + 1
        if not counts or max(counts.values()) < 2:
            break
        pair = max(counts, key=counts.get)
        new, merged, i = 256 + len(merges), [], 0
        while i < len(ids):
            if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
                merged.append(new)
                i += 2
            else:
                merged.append(ids[i])
                i += 1
        ids = merged
        merges.append(pair)
    return merges
