"""Hidden checks for chapter 09's `bpe_encode`: no merges, merges trained on the same and on other texts, order against frequency, runs."""

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.tokenization_shared import (
    POOLS,
    _compare,
    _ints,
    _untyped,
    random_text,
    reference_encode,
    reference_train,
    typed_call,
)
from autograder.judge.declaration import Exercise
from autograder.judge.expect import expect_unchanged, value_of
from autograder.sandbox.guest.protocol import Outcome

EXERCISE = Exercise(
    name="bpe_encode",
    chapter="09_tokenization",
    points=3,
    kind="debug",
    library=("bpe:bpe_encode", "bpe:_replace"),
    worked_examples=(
        ("aaabdaaabac", [(97, 97), (256, 97), (257, 98)]),
        ("to be or not", [(116, 111), (32, 98), (256, 32)]),
        ("abcabc", [(97, 98), (256, 99)]),
    ),
)


def ids_answer(outcome: Outcome) -> list[int]:
    """The answer as a list of ints, each an int in the student's own process (a NumPy integer
    is not one)."""
    outcome, items = _untyped(outcome)
    value = _ints(value_of(outcome), "int ids")
    for i, item in enumerate(value):
        kind = items[i] if items is not None else type(item).__name__
        if type(item) is not int or kind != "int":
            raise CheckFailed(f"item {i} is a {kind}; expected int ids")
    return value


ENCODE_DIAGNOSES: list[tuple[str, dict]] = [
    (
        "the most frequent pair was merged first: merges apply in the order they were learned",
        {"rule": "frequency"},
    ),
    (
        "the latest merge was applied first: merges apply in the order they were learned",
        {"rule": "latest"},
    ),
    (
        "the pair was chosen by the values of its ids: merges apply in the order they were learned",
        {"rule": "smallest"},
    ),
    (
        "the merge replaced right to left: with (a, a), 'aaa' encoded as [a, X]",
        {"right_to_left": True},
    ),
    ("the new ids are off by one: which id does merge 0 create?", {"first": 255}),
    ("the new ids are off by one: which id does merge 0 create?", {"first": 257}),
    (
        "the ids are the characters' code points: what does the contract encode, characters or "
        "bytes?",
        {"chars": True},
    ),
    (
        "a pair the merge list names twice took its later index: which of its two listings does a "
        "replay of the list in order apply?",
        {"duplicates": "last"},
    ),
    (
        "the text was normalised before encoding: the bytes of its characters as given, composed "
        "or not, are what is encoded",
        {"normalise": "NFC"},
    ),
]


def _encode_check(text: str, merges: list, what: str) -> Check:
    expected = reference_encode(text, merges)
    args = (text, merges)

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        diagnoses = lambda: [  # noqa: E731
            (hint, reference_encode(text, merges, **rule)) for hint, rule in ENCODE_DIAGNOSES
        ]
        _compare(ids_answer(outcome), expected, diagnoses)
        expect_unchanged(_untyped(outcome)[0], args)

    return Check(what, [typed_call(args)], judge)


def bpe_encode_checks(rng: np.random.Generator) -> list[Check]:
    """No merges, merges trained on the same and on other texts, order against frequency, runs."""
    checks = [
        _encode_check("", [], "the empty text"),
        _encode_check("a", [], "one byte"),
        _encode_check("héllo 中文 😀", [], "no merges: the UTF-8 bytes"),
        _encode_check("aaa", [(97, 97)], "'aaa' with the merge (a, a): [256, 97]"),
        _encode_check("aaaaa", [(97, 97), (256, 256)], "a run of 5 a's"),
        _encode_check(
            "abc abc ab ab ab",
            [(98, 99), (97, 98)],
            "merge 0 is (b, c), rarer here than merge 1 (a, b): the merges' order wins",
        ),
        _encode_check(
            "abcd",
            [(99, 100), (98, 99), (97, 98), (256, 97)],
            "the lowest merge index first, wherever it is",
        ),
        _encode_check("zzz", [(97, 98), (98, 99)], "merges that never apply"),
        _encode_check("aa", [(97, 97), (97, 97)], "a pair listed twice"),
        _encode_check(
            "aa", [(97, 97), (98, 98), (97, 97)], "a pair listed twice, two places apart"
        ),
        _encode_check(
            "aaaa", [(98, 98), (97, 97), (97, 97), (257, 257)], "a pair listed twice among others"
        ),
        _encode_check("\ufeffabab", [(97, 98)], "a text that starts with U+FEFF (a BOM)"),
        _encode_check(
            "e\u0301te\u0301 cafe\u0301", [(204, 129), (101, 256)], "combining accents (not NFC)"
        ),
        _encode_check("a\x00b\tc\n\x1b[0m\r", [(97, 0)], "control characters"),
        _encode_check("\\ud83d\\ude00 \\n", [(92, 117)], "escaped surrogates: backslashes"),
    ]
    for pool, length, merges in [
        ("letters", 200, 30),
        ("words", 400, 50),
        ("accents", 120, 30),
        ("emoji", 60, 30),
        ("cjk", 90, 30),
        ("mixed", 150, 40),
    ]:
        train = random_text(rng, POOLS[pool], length)
        learned = reference_train(train, 256 + merges)
        checks.append(
            _encode_check(train, learned, f"random {pool} text with the merges trained on it")
        )
        other = random_text(rng, POOLS[pool], length // 2)
        checks.append(
            _encode_check(other, learned, f"another random {pool} text with those merges")
        )
    words = random_text(rng, POOLS["words"], 1500)
    checks.append(
        _encode_check(
            random_text(rng, POOLS["words"], 600),
            reference_train(words, 336),
            "a text of 600 characters with 80 merges from another text",
        )
    )
    return checks
