"""Expands each id recursively into a bytearray."""

EXPECT = "pass"


def bpe_decode(ids, merges):
    def expand(i, out):
        if i < 256:
            out.append(i)
        else:
            a, b = merges[i - 256]
            expand(a, out)
            expand(b, out)

    out = bytearray()
    for i in ids:
        if not (isinstance(i, int) and 0 <= i < 256 + len(merges)):
            raise ValueError(f"bad id {i!r}: ids go from 0 to {255 + len(merges)}")
        expand(i, out)
    return bytes(out).decode("utf-8", "replace")
