"""\\w+ for words: letters and digits end up in one chunk."""

import re

EXPECT = "letters, digits and other symbols"


def pre_split(text):
    return re.findall(r"'(?:s|t|re|ve|m|ll|d)| ?\w+| ?[^\s\w]+|\s+(?!\S)|\s+", text)
