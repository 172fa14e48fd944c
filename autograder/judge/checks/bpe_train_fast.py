"""Hidden checks for chapter 09's `bpe_train_fast`: bpe_train's cases and diagnoses (the same contract); the speed is judged by `autograder.judge.timing`."""

import numpy as np

from autograder.judge.check import Check
from autograder.judge.checks.bpe_train import TRAIN_DIAGNOSES, _train_check, bpe_train_checks
from autograder.judge.declaration import Exercise, Speed

EXERCISE = Exercise(
    name="bpe_train_fast",
    chapter="09_tokenization",
    points=3,
    kind="design",
    library=("bpe:bpe_train", "bpe:_replace"),
    worked_examples=(
        ("aaabdaaabac", 300),
        ("to be or not to be, that is", 270),
        ("abcabcabd", 262),
    ),
    speed=Speed(
        ratio=5.0,  # the student's timed run may take this many times the reference's CPU time
        anchor="proof_lm.bpe:bpe_train",  # what a student's own kernel times against (as fast)
        slow="the work grows with merges x text length: each merge changes the pairs around its "
        "own occurrences only, and what it did not touch need not be counted again",
    ),
)

SPEED_CHARS, SPEED_MERGES = 200_000, 500  # the timed call: a slice of the corpus, its merges


STALE = (
    "a later merge was chosen from counts that are not those of the current sequence: a merge "
    "changes the pairs on both sides of every occurrence it replaces"
)


FAST_DIAGNOSES = [
    (STALE if rule == {"recount": False} else hint, rule) for hint, rule in TRAIN_DIAGNOSES
] + [
    (
        "the pairs a merge forms with the new id never became candidates: after a merge of "
        "(a, b), what stands on each side of the new token?",
        {"stale": "new"},
    ),
    (
        "the pairs a merge breaks kept their counts: in 'x a b y', merging (a, b) ends (x, a) "
        "and (b, y) there",
        {"stale": "kept"},
    ),
]


def bpe_train_fast_checks(rng: np.random.Generator) -> list[Check]:
    """bpe_train's cases and diagnoses (the same contract); the speed is judged by `autograder.judge.timing`."""
    return bpe_train_checks(rng, FAST_DIAGNOSES)


def bpe_train_fast_timed(rng: np.random.Generator) -> Check:
    """The timed call: SPEED_MERGES merges of a random SPEED_CHARS-character slice of the corpus.

    Its expected merges come from `proof_lm.bpe.bpe_train` (the plain definition would take the
    grader seconds here); tests/library/test_bpe.py checks that one against the plain definition.
    """
    from proof_lm.bpe import bpe_train
    from proof_lm.shakespeare import load_shakespeare

    corpus = load_shakespeare()
    start = int(rng.integers(0, len(corpus) - SPEED_CHARS))
    text = corpus[start : start + SPEED_CHARS]
    what = f"{SPEED_MERGES} merges of {SPEED_CHARS:,} characters of Shakespeare"
    expected = bpe_train(text, 256 + SPEED_MERGES)
    return _train_check(text, 256 + SPEED_MERGES, what, FAST_DIAGNOSES, expected)
