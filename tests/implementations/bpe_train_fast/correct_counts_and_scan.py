"""Counts per pair updated around each merge, the next pair found by a scan of the counts (no heap),
the sequence as a list with merged slots set to None."""

EXPECT = "pass"


def bpe_train_fast(text, vocab_size):
    if vocab_size < 256:
        raise ValueError(f"vocab_size must be >= 256, got {vocab_size}")
    seq = list(text.encode("utf-8"))
    where = {}
    for i in range(len(seq) - 1):
        where.setdefault((seq[i], seq[i + 1]), set()).add(i)

    def after(i):
        i += 1
        while i < len(seq) and seq[i] is None:
            i += 1
        return i if i < len(seq) else None

    def before(i):
        i -= 1
        while i >= 0 and seq[i] is None:
            i -= 1
        return i if i >= 0 else None

    merges = []
    while len(merges) < vocab_size - 256:
        best = max((len(s) for s in where.values()), default=0)
        if best < 2:
            break
        pair = min((p for p, s in where.items() if len(s) == best), key=lambda p: min(where[p]))
        new = 256 + len(merges)
        for i in sorted(where.pop(pair)):
            j = after(i)
            if seq[i] != pair[0] or j is None or seq[j] != pair[1]:
                continue
            h, k = before(i), after(j)
            if h is not None:
                where[(seq[h], seq[i])].discard(h)
                where.setdefault((seq[h], new), set()).add(h)
            if k is not None:
                gone = where.get((seq[j], seq[k]))
                if gone is not None:
                    gone.discard(j)
                where.setdefault((new, seq[k]), set()).add(i)
            seq[i], seq[j] = new, None
        where = {p: s for p, s in where.items() if s}
        merges.append(pair)
    return merges
