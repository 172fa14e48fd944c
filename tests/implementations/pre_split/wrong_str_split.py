"""str.split: words only, the whitespace lost."""

EXPECT = "the whitespace was dropped"


def pre_split(text):
    return text.split()
