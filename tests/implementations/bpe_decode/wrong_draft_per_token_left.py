"""The draft with two bugs fixed: each token is still decoded on its own."""

EXPECT = "a token can end inside one"


def bpe_decode(ids: list[int], merges: list[tuple[int, int]]) -> str:
    table = [bytes([b]) for b in range(256)]  # id -> the bytes it stands for
    for a, b in merges:
        table.append(table[a] + table[b])  # merge i is id 256 + i
    for i in ids:
        if not 0 <= i < len(table):
            raise ValueError(f"id {i} is neither a byte nor a merge (0 to {len(table) - 1})")
    return "".join(table[i].decode("utf-8", errors="replace") for i in ids)
