"""Works through the caller's list of merges by popping it empty."""

EXPECT = "was modified"


def bpe_encode(text, merges):
    ids = list(text.encode("utf-8"))
    new = 256
    while merges:
        pair = tuple(merges.pop(0))
        out, i = [], 0
        while i < len(ids):
            if tuple(ids[i : i + 2]) == pair:
                out.append(new)
                i += 2
            else:
                out.append(ids[i])
                i += 1
        ids, new = out, new + 1
    return ids
