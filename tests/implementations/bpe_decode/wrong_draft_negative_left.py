"""The draft with two bugs fixed: a negative id still reads from the end of the table."""

EXPECT = "returned normally"


def bpe_decode(ids: list[int], merges: list[tuple[int, int]]) -> str:
    table = [bytes([b]) for b in range(256)]  # id -> the bytes it stands for
    for a, b in merges:
        table.append(table[a] + table[b])  # merge i is id 256 + i
    for i in ids:
        if i >= len(table):
            raise ValueError(f"id {i} is neither a byte nor a merge (0 to {len(table) - 1})")
    return b"".join(table[i] for i in ids).decode("utf-8", errors="replace")
