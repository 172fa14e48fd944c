"""[^\\s\\w] for symbols misses the underscore, which \\w counts as a word character: it is dropped."""

import re

EXPECT = "join back"


def pre_split(text):
    return re.findall(r"'(?:s|t|re|ve|m|ll|d)| ?[^\W\d_]+| ?\d+| ?[^\s\w]+|\s+(?!\S)|\s+", text)
