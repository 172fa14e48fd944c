"""Joins a merge's parts in the wrong order."""

EXPECT = "came out in the wrong order"


def bpe_decode(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for i, (a, b) in enumerate(merges):
        vocab[256 + i] = vocab[b] + vocab[a]
    for i in ids:
        if i not in vocab:
            raise ValueError(f"id {i} is neither a byte nor a merge")
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")
