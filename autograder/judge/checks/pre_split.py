"""Hidden checks for chapter 09's challenge: pre_split, GPT-2's pre-tokenization rules.

The reference scans the text one character at a time with str methods (isalpha, isdecimal,
isspace) and no regular expression; a student's regular expression must agree with it on the
characters the contract covers (letters, decimal digits, whitespace, punctuation, emoji). The
diagnoses are the classic shortcuts: str.split, \\w+ grouping, no contractions, a space attached
at the end of a word, whitespace runs that take the space before a word, digits cut into threes.
Each diagnosed class has a fixed text (TEXTS): whitespace kept, letters beside digits, contractions
(and upper-case ones that are not), runs of spaces before a word, leading and trailing spaces,
newlines and tabs, accents, CJK and emoji, punctuation runs, underscores, the empty text, one
character, and runs of more than three digits; the random texts add coverage, never replace it.
"""

import re

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.declaration import Exercise
from autograder.judge.expect import value_of
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="pre_split",
    chapter="09_tokenization",
    points=2,
    extra=True,
)

CONTRACTIONS = ("'s", "'t", "'re", "'ve", "'m", "'ll", "'d")


def _other(ch: str) -> bool:
    return not (ch.isspace() or ch.isalpha() or ch.isdecimal())


def reference_split(text: str, contractions: bool = True, lookahead: bool = True) -> list[str]:
    """GPT-2's chunks: contractions, ' ?letters', ' ?digits', ' ?others', then whitespace runs."""
    chunks, i, n = [], 0, len(text)
    while i < n:
        if contractions:
            found = next((c for c in CONTRACTIONS if text.startswith(c, i)), None)
            if found:
                chunks.append(found)
                i += len(found)
                continue
        start = i + 1 if text[i] == " " and i + 1 < n else i
        for kind in (str.isalpha, str.isdecimal, _other):
            j = start
            while j < n and kind(text[j]):
                j += 1
            if j > start:
                chunks.append(text[i:j])
                i = j
                break
        else:  # whitespace: a run, less its last character when a non-space follows
            j = i
            while j < n and text[j].isspace():
                j += 1
            if lookahead and j < n and j - i > 1:
                j -= 1
            chunks.append(text[i:j])
            i = j
    return chunks


THREES = r"'(?:s|t|re|ve|m|ll|d)| ?[^\W\d_]+| ?\d{1,3}| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+"


def _re_split(pattern: str, text: str) -> list[str]:
    return re.findall(pattern, text)


DIAGNOSES = [
    (
        "the whitespace was dropped: the chunks must join back to the text",
        lambda t: t.split(),
    ),
    (
        "letters, digits and other symbols are separate chunks (\\w+ joins letters and digits)",
        lambda t: _re_split(r"'(?:s|t|re|ve|m|ll|d)| ?\w+| ?[^\s\w]+|\s+(?!\S)|\s+", t),
    ),
    (
        "contractions ('s, 't, 're, 've, 'm, 'll, 'd) come first, as chunks of their own",
        lambda t: reference_split(t, contractions=False),
    ),
    (
        "a run of spaces before a word kept all its spaces: its last space belongs to the word",
        lambda t: reference_split(t, lookahead=False),
    ),
    (
        "a run of digits came back in pieces: a run of decimal digits is one chunk, however long "
        "(GPT-2's rule; later tokenizers cut digits into threes)",
        lambda t: _re_split(THREES, t),
    ),
    (
        "the space went after a chunk: in GPT-2's chunks, a space leads",
        lambda t: _re_split(r"'(?:s|t|re|ve|m|ll|d)|[^\W\d_]+ ?|\d+ ?|[^\s\w]+ ?|\s+", t),
    ),
]

TEXTS = [
    "Hello world",
    "Hello, world!",
    "I'm sure they're here; we've said it's what you'd do, and I'll go.",
    "DON'T SHOUT",  # upper-case: no contraction
    "abc123def 45 6.7",
    "a  b   c",
    "line one\nline two\n\n  indented\tand tabbed  ",
    "   leading spaces",
    "trailing spaces   ",
    "café naïve 中文字 Ünïcödé",
    "hi 😀😀! ok 👍🏽",
    "ROMEO.\n\nO, she doth teach the torches to burn bright!",
    "''''",
    "x",
    " ",
    "",
    "$100 -- 50% off!!! (really?)",
    "snake_case_name = 3",
    "in 1599 and 20250101: 1234567 digits, abc12345def",  # runs of digits longer than three
]


def _split_check(text: str, what: str) -> Check:
    expected = reference_split(text)

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        value = value_of(outcome)
        if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
            raise CheckFailed(f"returned {type(value).__name__}; expected a list of str")
        if value == expected:
            return
        known = [hint for hint, variant in DIAGNOSES if value == variant(text) != expected]
        if known:
            raise CheckFailed("; or ".join(known))
        if "".join(value) != text:
            raise CheckFailed("the chunks must join back to exactly the text")
        raise CheckFailed(f"got {value[:8]!r}, expected {expected[:8]!r}")

    return Check(what, [Call((text,))], judge)


def pre_split_checks(rng: np.random.Generator) -> list[Check]:
    """Fixed texts for every rule, then random mixtures of words, digits, symbols and spaces."""
    checks = [_split_check(text, f"{text[:30]!r}") for text in TEXTS]
    pieces = [
        "the",
        "Thou",
        "'s",
        "'ll",
        "don't",
        "12",
        "7",
        ",",
        "!!",
        "😀",
        "中文",
        "é",
        " ",
        "  ",
        "\n",
        "\t",
        "'S",
        "_",
    ]
    for n in (5, 20, 60):
        for _ in range(2):
            text = "".join(rng.choice(pieces, size=n))
            checks.append(_split_check(text, f"a random text of {n} pieces"))
    return checks
