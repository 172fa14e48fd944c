"""GPT-2's pattern written with the re module's classes (letters = [^\\W\\d_], others include _)."""

import re

EXPECT = "pass"

PATTERN = re.compile(r"'(?:s|t|re|ve|m|ll|d)| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+")


def pre_split(text):
    return PATTERN.findall(text)
