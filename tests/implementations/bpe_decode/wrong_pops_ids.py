"""Consumes the caller's list of ids."""

EXPECT = "was modified"


def bpe_decode(ids, merges):
    table = [bytes([i]) for i in range(256)]
    for a, b in merges:
        table.append(table[a] + table[b])
    out = b""
    ids.reverse()
    while ids:
        i = ids.pop()
        if not 0 <= i < len(table):
            raise ValueError(f"unknown id {i}")
        out += table[i]
    return out.decode("utf-8", errors="replace")
