"""The debug exercise's draft as handed out: runs of a repeated byte counted without overlap, pairs seen once merged, ties to the smallest pair."""

EXPECT = "a pair seen once was merged"


def bpe_train(text: str, vocab_size: int) -> list[tuple[int, int]]:
    if vocab_size < 256:
        raise ValueError(f"vocab_size must be at least 256 (the byte values), got {vocab_size}")
    ids = list(text.encode("utf-8"))
    merges = []
    while len(merges) < vocab_size - 256:
        counts, previous = {}, None
        for pair in zip(ids, ids[1:]):
            if pair == previous and pair[0] == pair[1]:  # 'aaa' is one (a, a) and a spare a
                previous = None
                continue
            counts[pair] = counts.get(pair, 0) + 1
            previous = pair
        if not counts or max(counts.values()) < 1:
            break
        best = max(counts.values())
        pair = min(p for p in counts if counts[p] == best)  # the first of the most frequent
        new, merged, i = 256 + len(merges), [], 0
        while i < len(ids):  # left to right, without overlap
            if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
                merged.append(new)
                i += 2
            else:
                merged.append(ids[i])
                i += 1
        ids = merged
        merges.append(pair)
    return merges
