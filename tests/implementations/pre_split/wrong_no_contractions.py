"""Leaves out the contractions."""

import re

EXPECT = "contractions"


def pre_split(text):
    return re.findall(r" ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+", text)
