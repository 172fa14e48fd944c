"""Decodes each token's bytes on its own."""

EXPECT = "a token can end inside one"


def bpe_decode(ids, merges):
    vocab = {i: bytes([i]) for i in range(256)}
    for i, (a, b) in enumerate(merges):
        vocab[256 + i] = vocab[a] + vocab[b]
    for i in ids:
        if i not in vocab:
            raise ValueError(f"id {i} is neither a byte nor a merge")
    return "".join(vocab[i].decode("utf-8", errors="replace") for i in ids)
