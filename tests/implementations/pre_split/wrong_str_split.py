"""str.split: words only, the whitespace lost."""

EXPECT = "keep the whitespace"


def pre_split(text):
    return text.split()
