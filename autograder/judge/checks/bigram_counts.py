"""Hidden checks for chapter 01's `bigram_counts`: worked example, the course alphabet, shuffled vocabularies, short and repeated words."""

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.bigram_counting_shared import reference_counts
from autograder.judge.checks.cases import (
    alphabet_vocab,
    random_vocab,
    random_words,
)
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    array_answer,
    expect_close,
    expect_unchanged,
    value_of,
)
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="bigram_counts",
    chapter="01_bigram_counting",
    points=2,
    kind="debug",
    library=("ngram:bigram_count_table", "ngram:ngram_counts", "ngram:_ngram_codes"),
)


def _judge_counts(words: list[str], stoi: dict[str, int], what: str, note: str = "") -> Check:
    expected = reference_counts(words, stoi)
    V = len(stoi)
    diagnoses = [
        ("rows and columns are swapped: row = previous character, column = next", expected.T),
        (
            "the start token is missing: no bigram begins at the word boundary '.'",
            reference_counts(words, stoi, start=False),
        ),
        (
            "the end token is missing: no bigram ends at the word boundary '.'",
            reference_counts(words, stoi, end=False),
        ),
        (
            "the '.' boundary tokens are missing: a word's first and last letters are never paired with the boundary",
            reference_counts(words, stoi, start=False, end=False),
        ),
        (
            "each bigram is counted once per word: a word that repeats a bigram counts it once",
            reference_counts(words, stoi, unique=True),
        ),
    ]
    if V == 27 and stoi != alphabet_vocab():
        diagnoses.append(
            (
                "ids were computed from the letters, not looked up in the vocabulary stoi",
                reference_counts(words, alphabet_vocab()),
            )
        )

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        value = value_of(outcome)
        if isinstance(value, np.ndarray) and value.ndim == 2 and value.shape != (V, V):
            raise CheckFailed(
                f"returned shape {value.shape}; expected ({V}, {V}), a row and a column per symbol of stoi, "
                "including characters that never occur"
            )
        counts = array_answer(outcome, (V, V), kinds="iuf")
        expect_close(counts, expected, rtol=0, atol=0, diagnoses=diagnoses, note=note)
        if counts.dtype != np.int64:
            raise CheckFailed(
                f"the counts are right but their dtype is {counts.dtype} where the contract has int64"
            )
        expect_unchanged(outcome, (words, stoi))

    return Check(what, [Call((words, stoi))], judge)


def bigram_counts_checks(rng: np.random.Generator) -> list[Check]:
    """Worked example, the course alphabet, shuffled vocabularies, short and repeated words."""
    alphabet = alphabet_vocab()
    checks = [
        _judge_counts(["ab", "b"], {".": 0, "a": 1, "b": 2}, "the visible example 'ab', 'b'"),
        _judge_counts(["emma", "ava"], alphabet, "the words 'emma' and 'ava'"),
        _judge_counts(random_words(rng, alphabet, 400), alphabet, "400 random words over a-z"),
        _judge_counts(
            ["a", "a", "aa", "aaa", "b"],
            {".": 0, "a": 1, "b": 2},
            "one-letter and repeated-letter words",
        ),
        _judge_counts(
            ["ab", "ba"],
            {".": 0, "a": 1, "b": 2, "c": 3, "d": 4, "e": 5},
            "characters that never occur (they still get a row and a column)",
        ),
    ]
    for size in (3, 7, 12, 27):
        stoi = random_vocab(rng, size)
        checks.append(
            _judge_counts(
                random_words(rng, stoi, int(rng.integers(5, 120))),
                stoi,
                f"{size}-symbol vocabulary with shuffled ids",
                note=" (ids here are not alphabetical: the vocabulary decides them)",
            )
        )
    return checks
