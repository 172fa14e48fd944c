"""A list of bytes indexed by id, checked only against the upper end: -1 reads the last entry."""

EXPECT = "expected ValueError"


def bpe_decode(ids, merges):
    table = [bytes([i]) for i in range(256)]
    for a, b in merges:
        table.append(table[a] + table[b])
    if any(i >= len(table) for i in ids):
        raise ValueError("unknown id")
    return b"".join(table[i] for i in ids).decode("utf-8", errors="replace")
