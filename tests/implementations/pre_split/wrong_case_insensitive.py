"""Matches contractions in any case (GPT-2's pattern is case-sensitive: 'S in DON'T SHOUT is not one)."""

import re

EXPECT = "got"

PATTERN = re.compile(
    r"'(?:s|t|re|ve|m|ll|d)| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+", re.IGNORECASE
)


def pre_split(text):
    return PATTERN.findall(text)
