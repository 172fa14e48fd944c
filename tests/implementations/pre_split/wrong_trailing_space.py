"""Attaches the optional space after a chunk instead of before it."""

import re

EXPECT = "a space leads"


def pre_split(text):
    return re.findall(r"'(?:s|t|re|ve|m|ll|d)|[^\W\d_]+ ?|\d+ ?|[^\s\w]+ ?|\s+", text)
