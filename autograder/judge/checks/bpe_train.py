"""Hidden checks for chapter 09's `bpe_train`: fixed cases for each rule (overlap, ties, stop, runs, Unicode), random texts, bad sizes."""

import functools
import re

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.tokenization_shared import (
    POOLS,
    _compare,
    _ints,
    _rejects,
    _untyped,
    random_text,
    reference_train,
    typed_call,
)
from autograder.judge.declaration import Exercise
from autograder.judge.expect import value_of
from autograder.sandbox.guest.protocol import Outcome

EXERCISE = Exercise(
    name="bpe_train",
    chapter="09_tokenization",
    points=4,
    kind="debug",
    library=("bpe:bpe_train", "bpe:_replace"),
    worked_examples=(
        ("aaabdaaabac", 300),
        ("to be or not to be, that is", 270),
        ("abcabcabd", 262),
    ),
)


def merges_answer(outcome: Outcome) -> list[tuple[int, int]]:
    """The answer as a list of (int, int) pairs (a pair may be a tuple or a list), each id an int
    in the student's own process (a NumPy integer is not one)."""
    outcome, items = _untyped(outcome)
    if outcome.error == "NotPlain" and "a dict" in outcome.message:
        raise CheckFailed("returned a dict; expected a list of (a, b) pairs, merge 0 first")
    value = _ints(value_of(outcome), "(a, b) pairs of ids")
    pairs = []
    for i, pair in enumerate(value):
        kinds = items[i] if items is not None else ["int", "int"]
        if not (
            isinstance(pair, tuple | list)
            and len(pair) == 2
            and all(type(x) is int for x in pair)
            and kinds == ["int", "int"]
        ):
            shown = f"{pair!r} ({', '.join(kinds)})" if isinstance(kinds, list) else repr(pair)
            raise CheckFailed(f"merge {i} is {shown}; each merge must be a pair (a, b) of int ids")
        pairs.append(tuple(pair))
    return pairs


OVERLAP = (
    "a pair's count is the number of positions at which it starts: how many has (a, a) in 'aaa'?"
)


TIE = (
    "a tie between equally frequent pairs went the wrong way: the contract picks the pair that "
    "occurs first in the current sequence"
)


RUN = (
    " (the text has a run of one character: in 'aaa' the occurrences of (a, a) overlap, and "
    "replacing the first one uses up the second)"
)


TRAIN_DIAGNOSES: list[tuple[str, dict]] = [
    ("the pairs are counted without overlap; " + OVERLAP, {"overlapping": False}),
    (TIE + ", not the numerically smallest pair", {"tie": "smallest"}),
    (TIE + ", not the numerically largest pair", {"tie": "largest"}),
    (TIE + ", not the one that occurs last", {"tie": "last"}),
    (
        "the merge replaced right to left: in 'aaa' the merge of (a, a) gave [a, X]",
        {"right_to_left": True},
    ),
    ("a pair seen once was merged: when does training stop?", {"min_count": 1}),
    ("a pair that occurs exactly twice was not merged: when does training stop?", {"min_count": 3}),
    ("the new ids are off by one: which id does merge 0 create?", {"first": 255}),
    ("the new ids are off by one, one too high: which id does merge 0 create?", {"first": 257}),
    (
        "the merges are of the characters' code points: what does the contract count, characters "
        "or bytes?",
        {"chars": True},
    ),
    (
        "a later merge was chosen from stale counts: they are not the pairs of the sequence the "
        "earlier merges left",
        {"recount": False},
    ),
    (
        "the text was normalised before training: the bytes of its characters as given, composed "
        "or not, are what is counted",
        {"normalise": "NFC"},
    ),
]


def _train_check(
    text: str,
    vocab_size: int,
    what: str,
    rules: list[tuple[str, dict]] = TRAIN_DIAGNOSES,
    expected: list | None = None,
) -> Check:
    expected = reference_train(text, vocab_size) if expected is None else expected
    note = RUN if re.search(r"(.)\1\1", text) else ""

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        diagnoses = lambda: [  # noqa: E731 (only computed for a wrong answer)
            (hint, reference_train(text, vocab_size, **rule)) for hint, rule in rules
        ]
        _compare(merges_answer(outcome), expected, diagnoses, note)

    return Check(what, [typed_call((text, vocab_size))], judge)


def bpe_train_checks(
    rng: np.random.Generator, rules: list[tuple[str, dict]] = TRAIN_DIAGNOSES
) -> list[Check]:
    """Fixed cases for each rule (overlap, ties, stop, runs, Unicode), random texts, bad sizes."""
    train = functools.partial(_train_check, rules=rules)
    checks = [
        train("aaa", 300, "'aaa': (a, a) occurs twice, overlapping, so it is merged"),
        train("aaaa", 300, "'aaaa' becomes [X, X]: occurrences are replaced without overlap"),
        train("aaaaaaa", 300, "a run of 7 a's"),
        train("abab", 300, "'abab': a pair seen exactly twice is merged, then training stops"),
        train("aaabcbc", 258, "a tie between (a, a) in 'aaa' and (b, c)"),
        train("dcfaebdcfaeb", 257, "a tie among 5 pairs: the first to occur wins"),
        train("dcfaebdcfaeb", 262, "ties after merges"),
        train("aaabdaaabac", 259, "the Wikipedia example 'aaabdaaabac'"),
        train("the cat sat on the mat", 270, "a sentence"),
        train("héllo wörld héllo wörld", 280, "accents are two bytes each"),
        train("中文中文字字字", 270, "CJK is three bytes a character"),
        train("😀😀😀 👍🏽👍🏽", 275, "emoji are four bytes a code point"),
        train("abcdefg", 300, "no pair occurs twice: no merges"),
        train("", 300, "the empty text: no merges"),
        train("a", 300, "one byte: no merges"),
        train("the the the the", 256, "vocab_size 256: no merges"),
    ]
    for pool, length, merges in [
        ("ascii", 40, 12),
        ("ascii", 120, 30),
        ("letters", 150, 40),
        ("words", 300, 40),
        ("accents", 80, 25),
        ("emoji", 40, 25),
        ("cjk", 60, 30),
        ("mixed", 100, 30),
    ]:
        text = random_text(rng, POOLS[pool], length)
        checks.append(
            train(text, 256 + merges, f"random {pool} text of {length} characters, {merges} merges")
        )
    words = random_text(rng, POOLS["words"], 3000)
    checks.append(train(words, 356, "a text of 3,000 characters, 100 merges"))
    checks.append(
        train("ab" * 30 + "c", 600, "'abab...' merges until no pair repeats (stops early)")
    )
    checks += [
        train("e\u0301te\u0301 e\u0301te\u0301 cafe\u0301", 262, "combining accents (not NFC)"),
        train("\ufeff\ufeffab\ufeffab", 260, "U+FEFF characters (BOMs) in the text"),
        train("a\x00a\x00\t\t\n\n\x1b\x1b", 262, "control characters"),
        train("", 300, "the empty text: no merges"),
        train("a", 300, "one byte: no merges"),
    ]
    checks += [
        _rejects(("abc", size), f"vocab_size {size} raises ValueError", "vocab_size must be >= 256")
        for size in (255, 0, -3)
    ]
    return checks
