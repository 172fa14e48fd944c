"""The draft with two bugs fixed: a merge still puts b before a."""

EXPECT = "came out in the wrong order"


def bpe_decode(ids: list[int], merges: list[tuple[int, int]]) -> str:
    table = [bytes([b]) for b in range(256)]  # id -> the bytes it stands for
    for a, b in merges:
        table.append(table[b] + table[a])  # merge i is id 256 + i
    for i in ids:
        if not 0 <= i < len(table):
            raise ValueError(f"id {i} is neither a byte nor a merge (0 to {len(table) - 1})")
    return b"".join(table[i] for i in ids).decode("utf-8", errors="replace")
