"""The draft handed out in chapter 09: three bugs (merge order, negative ids, per-token decoding)."""

EXPECT = "the text encoding replaced with it"


def bpe_decode(ids: list[int], merges: list[tuple[int, int]]) -> str:
    table = [bytes([b]) for b in range(256)]  # id -> the bytes it stands for
    for a, b in merges:
        table.append(table[b] + table[a])  # merge i is id 256 + i
    for i in ids:
        if i >= len(table):
            raise ValueError(f"id {i} is neither a byte nor a merge (0 to {len(table) - 1})")
    return "".join(table[i].decode("utf-8", errors="replace") for i in ids)
