"""Decodes the bytes as Latin-1."""

EXPECT = "another encoding than UTF-8"


def bpe_decode(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for i, (a, b) in enumerate(merges):
        vocab[256 + i] = vocab[a] + vocab[b]
    for i in ids:
        if i not in vocab:
            raise ValueError(f"id {i} is neither a byte nor a merge")
    return b"".join(vocab[i] for i in ids).decode("latin-1")
