"""Hidden checks for chapter 03's `context_windows`: the name emma, one-letter names, long names, block sizes 1 to 8, shuffled vocabularies, '.' at an id other than 0.

The reference is makemore's rolling-context loop.
"""

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.cases import alphabet_vocab, random_vocab, random_words
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    as_array,
    expect_close,
    expect_unchanged,
    tuple_answer,
)
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="context_windows",
    chapter="03_mlp_lm",
    points=2,
    kind="debug",
    library=(
        "windows:_sliding_windows",
        "windows:padded_windows",
        "windows:name_windows",
        "windows:make_context_dataset",
    ),
)


def reference_windows(
    words: list[str], stoi: dict[str, int], block_size: int, reset: bool = True, end: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """makemore's loop: a rolling context of ids, padded with '.', oldest first."""
    X, Y = [], []
    context = [stoi["."]] * block_size
    for word in words:
        if reset:
            context = [stoi["."]] * block_size
        for ch in word + ("." if end else ""):
            X.append(list(context))
            Y.append(stoi[ch])
            context = [*context[1:], stoi[ch]]
    return np.array(X, dtype=np.int64).reshape(-1, block_size), np.array(Y, dtype=np.int64)


def _judge_windows(words: list[str], stoi: dict[str, int], block_size: int, what: str) -> Check:
    X, Y = reference_windows(words, stoi, block_size)
    rows = len(Y)
    dot = stoi["."]
    diagnoses = [
        (
            "the context is newest first: the contract puts the oldest id in X[i, 0]",
            X[:, ::-1],
        ),
        (
            "the first context of a name after the first holds symbols of the name before it",
            reference_windows(words, stoi, block_size, reset=False)[0],
        ),
    ]
    zero = reference_windows(words, {**stoi, ".": 0}, block_size) if dot != 0 else (None, None)
    dots = (
        f"'.' has the id {dot} in this vocabulary, yet the examples hold 0 where the contract "
        "puts a dot"
    )

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        got_X, got_Y = tuple_answer(outcome, ["X", "Y"])
        if isinstance(got_Y, np.ndarray) and got_Y.ndim == 1 and len(got_Y) != rows:
            raise CheckFailed(
                f"{len(got_Y)} examples for {len(words)} names of {rows - len(words)} letters in "
                f"all, where the contract gives {rows}: one per symbol predicted, each name's "
                "closing '.' included"
            )
        got_X = as_array(got_X, (rows, block_size), kinds="iu")
        got_Y = as_array(got_Y, (rows,), kinds="iu")
        expect_close(got_Y, Y, rtol=0, atol=0, diagnoses=[(dots, zero[1])])
        expect_close(got_X, X, rtol=0, atol=0, diagnoses=[*diagnoses, (dots, zero[0])])
        if got_X.dtype != np.int64 or got_Y.dtype != np.int64:
            raise CheckFailed(
                f"right ids, but dtypes {got_X.dtype} and {got_Y.dtype} where the contract has int64"
            )
        expect_unchanged(outcome, (words, stoi, block_size))

    return Check(what, [Call((words, stoi, block_size))], judge)


def context_windows_checks(rng: np.random.Generator) -> list[Check]:
    """The name emma, one-letter names, long names, block sizes 1 to 8, shuffled vocabularies, '.' at an id other than 0."""
    alphabet = alphabet_vocab()
    checks = [
        _judge_windows(["emma"], alphabet, 3, "the name 'emma', block size 3"),
        _judge_windows(
            ["a", "b", "ab"], {".": 0, "a": 1, "b": 2}, 2, "one-letter names, block size 2"
        ),
        _judge_windows(["abcdefghijklmn"], alphabet, 3, "a name much longer than the block"),
        _judge_windows(["ava", "bo"], alphabet, 8, "block size 8, longer than the names"),
        _judge_windows(["x"], alphabet, 1, "block size 1 (a bigram dataset)"),
    ]
    for block_size in (1, 2, 3, 5):
        stoi = random_vocab(rng, int(rng.integers(4, 15)))
        words = random_words(rng, stoi, int(rng.integers(3, 40)), max_length=12)
        checks.append(
            _judge_windows(
                words, stoi, block_size, f"random words, shuffled ids, block size {block_size}"
            )
        )
    for block_size in (1, 3):  # the contract reads the dot's id from stoi, like every other id
        stoi = random_vocab(rng, int(rng.integers(4, 15)))
        moved = int(rng.integers(1, len(stoi)))
        stoi = {ch: moved if i == 0 else 0 if i == moved else i for ch, i in stoi.items()}
        words = random_words(rng, stoi, int(rng.integers(3, 20)), max_length=8)
        checks.append(
            _judge_windows(
                words, stoi, block_size, f"'.' has the id {moved}, block size {block_size}"
            )
        )
    return checks
