"""Hidden checks for chapter 01's `bigram_probs`: plain rows, add-k for several k (positional, keyword, default), empty rows, inputs untouched."""

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.layouts import with_layout
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    array_answer,
    expect_close,
    expect_unchanged,
)
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="bigram_probs",
    chapter="01_bigram_counting",
    points=2,
    kind="implement",
    library=("ngram:add_k_probs",),
)


def reference_probs(counts: np.ndarray, k: float) -> np.ndarray:
    """Add-k rows by a loop; a row with total 0 becomes uniform."""
    V = counts.shape[1]
    probs = np.zeros(counts.shape, dtype=np.float64)
    for row in range(counts.shape[0]):
        total = float(sum(counts[row])) + k * V
        for col in range(V):
            probs[row, col] = (counts[row, col] + k) / total if total > 0 else 1.0 / V
    return probs


def _random_counts(rng: np.random.Generator, V: int, empty_rows: int) -> np.ndarray:
    counts = rng.integers(0, 50, size=(V, V)) * (rng.random((V, V)) < 0.6)
    counts[rng.choice(V, size=empty_rows, replace=False)] = 0
    counts[counts.sum(axis=1) == 0, :] = 0
    return counts.astype(np.int64)


def _judge_probs(
    counts: np.ndarray, k: float | None, what: str, keyword: bool = False, rtol: float = 1e-9
) -> Check:
    effective = 0.0 if k is None else k
    expected = reference_probs(counts, effective)
    c = counts.astype(np.float64)
    rows = c.sum(axis=1, keepdims=True)
    V = counts.shape[1]
    with np.errstate(all="ignore"):
        diagnoses = [
            (
                "each column sums to 1 and the rows do not: normalised along the wrong axis",
                (c + effective) / (c + effective).sum(axis=0, keepdims=True),
            ),
            (
                f"k was ignored: the smoothing count k = {effective} changes nothing",
                reference_probs(counts, 0.0),
            ),
            (
                "the rows do not sum to 1: the denominator misses the k added to every column",
                (c + effective) / (rows + effective),
            ),
            (
                "the rows do not sum to 1: k was added after normalising",
                (c / rows + effective) / (c / rows + effective).sum(axis=1, keepdims=True),
            ),
            (
                "a row with no counts (and k = 0) came out all zeros: the contract makes it uniform",
                np.where(rows > 0, expected, 0.0),
            ),
            (
                "the rows are the counts themselves: the constraint that each row sums to 1 "
                "never entered the maximisation",
                c + effective,
            ),
        ]
    if k is None:
        call = Call((counts,))
    elif keyword:
        call = Call((counts,), {"k": k})
    else:
        call = Call((counts, k))

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        probs = array_answer(outcome, counts.shape, kinds="f")
        empty = (rows[:, 0] + effective * V) == 0
        if np.isnan(probs[empty]).any():
            raise CheckFailed(
                "a row with no counts and k = 0 gave nan (0/0): the contract makes it uniform"
            )
        with np.errstate(all="ignore"):
            sums_to_one = np.allclose(probs.astype(np.float64).sum(axis=1), 1.0, rtol=1e-6)
        note = (
            " (each row sums to 1 but is not the distribution that makes its own pairs, counts "
            "plus k, most likely)"
            if sums_to_one
            else " (the rows do not sum to 1: each row must be a distribution)"
        )
        expect_close(
            probs,
            expected,
            rtol=rtol,
            atol=rtol * 1e-3,
            diagnoses=diagnoses,
            note=note,
            reveal=False,  # on [[1, 3]] the expected row is the derivation's answer
        )
        expect_unchanged(outcome, (counts,))

    return Check(what, [call], judge)


def bigram_probs_checks(rng: np.random.Generator) -> list[Check]:
    """Plain rows, add-k for several k (positional, keyword, default), empty rows, inputs untouched.

    Counts come as int64, int32, float64 and float32 tables: whatever the dtype, the caller's
    table must be left as it was (a float64 table is where `np.asarray(counts, dtype=float)`
    followed by `+=` writes into the caller's array).
    """
    visible = np.array([[1, 3], [0, 0]], dtype=np.int64)
    checks = [
        _judge_probs(visible, None, "the visible example [[1, 3], [0, 0]], default k"),
        _judge_probs(visible, 1.0, "the visible example [[1, 3], [0, 0]], k = 1", keyword=True),
        _judge_probs(
            np.array([[0, 2, 2], [1, 1, 2], [0, 0, 0]], dtype=np.int64),
            None,
            "a 3x3 table with an empty row, default k",
        ),
        _judge_probs(np.array([[3, 1], [0, 4]], dtype=np.int64), 1.0, "a 2x2 table with k = 1"),
    ]
    for index, (V, k) in enumerate(
        [(5, 0.0), (27, 1.0), (11, 0.5), (30, 2.75), (8, 0.01), (27, 0.0)]
    ):
        counts = _random_counts(rng, V, empty_rows=int(rng.integers(1, 3)))
        checks.append(
            _judge_probs(
                counts, k, f"random {V}x{V} counts with empty rows, k = {k}", keyword=index % 2 == 1
            )
        )
    checks += [
        _judge_probs(
            np.array([[1.0, 3.0], [0.0, 0.0]]), None, "float64 counts [[1, 3], [0, 0]], default k"
        ),
        _judge_probs(
            np.array([[1.0, 3.0], [0.0, 0.0]]), 1.0, "float64 counts, k = 1", keyword=True
        ),
    ]
    for dtype, k, rtol in [(np.float64, 0.5, 1e-9), (np.float32, 1.0, 1e-5), (np.int32, 0.0, 1e-9)]:
        V = int(rng.integers(3, 28))
        counts = _random_counts(rng, V, empty_rows=1).astype(dtype)
        if dtype == np.float64:  # expected counts need not be whole numbers
            counts = counts * rng.uniform(0.5, 1.5, counts.shape)
        checks.append(
            _judge_probs(
                counts,
                k,
                f"random {V}x{V} {np.dtype(dtype).name} counts, k = {k} (left unmodified)",
                keyword=True,
                rtol=rtol,
            )
        )
    normalised = rng.dirichlet(np.ones(6), size=6)
    checks += [
        _judge_probs(normalised, None, "rows that already sum to 1, default k (a new array)"),
        _judge_probs(np.array([[0]]), None, "a 1x1 table of no counts (V = 1): uniform is [[1]]"),
        with_layout(
            _judge_probs(_random_counts(rng, 7, empty_rows=1), 0.5, "random 7x7 counts, k = 0.5"),
            "transposed",
        ),
        with_layout(
            _judge_probs(
                _random_counts(rng, 6, empty_rows=1).astype(np.float64), 0.0, "random 6x6 counts"
            ),
            "strided",
        ),
    ]
    return checks
