"""A hand-written scanner: one chunk at a time, by the kind of its first character."""

EXPECT = "pass"


def kind(ch):
    if ch.isspace():
        return "space"
    if ch.isalpha():
        return "letter"
    if ch.isdecimal():
        return "digit"
    return "other"


def pre_split(text):
    out, i = [], 0
    while i < len(text):
        for c in ("'s", "'t", "'re", "'ve", "'m", "'ll", "'d"):
            if text.startswith(c, i):
                out.append(c)
                i += len(c)
                break
        else:
            j = (
                i + 1
                if text[i] == " " and i + 1 < len(text) and kind(text[i + 1]) != "space"
                else i
            )
            k = kind(text[j])
            end = j
            while end < len(text) and kind(text[end]) == k:
                end += 1
            if k == "space" and end < len(text) and end - j > 1:
                end -= 1
            out.append(text[i:end])
            i = end
    return out
