"""GPT-2's pattern with digits cut into runs of at most three (as later tokenizers do)."""

import re

EXPECT = "a run of digits came back in pieces"

PATTERN = re.compile(r"'(?:s|t|re|ve|m|ll|d)| ?[^\W\d_]+| ?\d{1,3}| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+")


def pre_split(text):
    return PATTERN.findall(text)
