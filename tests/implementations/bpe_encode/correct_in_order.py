"""Each merge in training order over the whole sequence: a merge only creates pairs of later merges."""

EXPECT = "pass"


def bpe_encode(text, merges):
    ids = list(text.encode())
    for i, (a, b) in enumerate(merges):
        out, j = [], 0
        while j < len(ids):
            if j + 1 < len(ids) and ids[j] == a and ids[j + 1] == b:
                out.append(256 + i)
                j += 2
            else:
                out.append(ids[j])
                j += 1
        ids = out
    return ids
