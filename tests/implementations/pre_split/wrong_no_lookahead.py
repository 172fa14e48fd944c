"""Whitespace runs without the look-ahead: the space before a word goes with the run."""

import re

EXPECT = "its last space belongs to the word"


def pre_split(text):
    return re.findall(r"'(?:s|t|re|ve|m|ll|d)| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+", text)
