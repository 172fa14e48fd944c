"""Hidden checks for chapter 02's loss_floor_and_gaps: cross-entropy = conditional entropy + KL.

The reference is written out cell by cell with Python floats and math.log: the floor is the mean
loss of the maximum-likelihood rows (each row's counts over its total), and row i's gap is its
share of the pairs times the relative entropy from its maximum-likelihood row to the model's row,
the cells summed by math.fsum. For models within a millionth of those rows each cell's log ratio
is taken from the exact rational ratio (log1p of its distance from 1): accurate there, in the
regime where a gap computed as a difference of two row losses keeps about two digits (measured
over 25 seeds on 60x60 tables: relative errors 2.8e-3 to 5.8e-3, against at most 4.5e-4 for the
relative entropy with its two logs taken apart and 1.8e-4 with the log of a ratio).
The diagnoses are the same sums with one slip: bits, the rows' entropies unweighted, the entropy of
the next token alone or of the pair, smoothed rows, the model's loss as the floor; the gaps
unweighted, reversed, or given to rows without counts.

Input classes: the worked stream by hand, random count tables with empty rows and empty cells,
integer and float counts, the model equal to the maximum-likelihood rows (gaps exactly 0), models
within a millionth of them (each gap 1e-13 of its row's loss, compared to a part in a thousand), a
model that gives zero probability to a pair that occurs (an infinite gap), a uniform model, counts in
the hundred thousands; and bad input: negative counts, no pairs, shapes that disagree, a model row
that is not a distribution.
"""

import math
from fractions import Fraction

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    as_array,
    as_number,
    expect_close,
    expect_raises,
    expect_unchanged,
    labelled,
    tuple_answer,
)
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="loss_floor_and_gaps",
    chapter="02_neural_bigram",
    points=2,
    kind="derive",
    given_in_text=("(floor,gaps)",),
)


def _ml_row(counts: list[float]) -> list[float]:
    total = sum(counts)
    return [c / total for c in counts] if total > 0 else [0.0] * len(counts)


def reference_floor(N: np.ndarray, smooth: float = 0.0, log=math.log) -> float:
    """The mean loss of the maximum-likelihood rows (of counts + `smooth`), cell by cell."""
    total = float(N.sum())
    floor = 0.0
    for row in N.tolist():
        q = _ml_row([c + smooth for c in row]) if sum(row) > 0 else [0.0] * len(row)
        floor -= sum(c * log(p) for c, p in zip(row, q, strict=True) if c > 0)
    return floor / total


def reference_gaps(
    N: np.ndarray, P: np.ndarray, weighted: bool = True, reverse: bool = False, exact: bool = False
) -> np.ndarray:
    """Row i: (its pairs / all pairs) * KL(maximum-likelihood row i || P row i), cell by cell;
    `exact`: each log ratio from the exact rational ratio, for models near the counts' rows."""
    total = float(N.sum())
    gaps = []
    for row, model in zip(N.tolist(), P.tolist(), strict=True):
        if sum(row) == 0:
            gaps.append(0.0)
            continue
        terms = []
        for count, p in zip(row, model, strict=True):
            p_hat = Fraction(count) / Fraction(sum(row)) if exact else count / sum(row)
            a, b = (p, p_hat) if reverse else (p_hat, p)
            a, b = (Fraction(a), Fraction(b)) if exact else (a, b)
            if a > 0 and b == 0:
                terms.append(math.inf)
            elif a > 0:
                ratio = math.log1p(float(a / b - 1)) if exact else math.log(float(a) / float(b))
                terms.append(float(a) * ratio)
        gaps.append(math.fsum(terms) * (sum(row) / total if weighted else 1.0))
    return np.array(gaps)


def _entropy(probs: list[float]) -> float:
    return -sum(p * math.log(p) for p in probs if p > 0)


def _wrong_floors(N: np.ndarray, P: np.ndarray) -> list[tuple[str, float]]:
    total = float(N.sum())
    used = [row for row in N.tolist() if sum(row) > 0]
    with np.errstate(all="ignore"):
        model_loss = float(-(N * np.log(P))[N > 0].sum() / total)
    return [
        (
            "the floor is in bits: the course's losses are in nats (natural log)",
            reference_floor(N, log=math.log2),
        ),
        (
            "the floor averages the rows' entropies with equal weights: a row counts as often as "
            "its previous token occurs",
            sum(_entropy(_ml_row(row)) for row in used) / len(used),
        ),
        (
            "the floor is the entropy of the next token alone: a bigram model knows the previous "
            "one, and each row is its own distribution",
            _entropy((N.sum(axis=0) / total).tolist()),
        ),
        (
            "the floor is the entropy of the whole pair: the model is not asked to predict the "
            "previous token, only the next one given it",
            _entropy((N / total).ravel().tolist()),
        ),
        (
            "the floor is the loss of add-one smoothed rows: which rows make the loss smallest?",
            reference_floor(N, smooth=1.0),
        ),
        ("the floor is this model's own loss: the floor depends on the counts alone", model_loss),
    ]


def _wrong_gaps(N: np.ndarray, P: np.ndarray) -> list[tuple[str, np.ndarray]]:
    return [
        (
            "the gaps are not weighted by how often each row's previous token occurs: the mean "
            "loss gives each row the share of pairs it holds",
            reference_gaps(N, P, weighted=False),
        ),
        (
            "the relative entropy is taken the other way round: the expectation is under the "
            "counts' distribution, the one the pairs are drawn from",
            reference_gaps(N, P, reverse=True),
        ),
        (
            "the gaps are in bits: the course's losses are in nats",
            reference_gaps(N, P) / math.log(2),
        ),
    ]


def _same(
    actual: np.ndarray, expected: np.ndarray, rtol: float = 1e-9, atol: float = 1e-12
) -> bool:
    """Equal infinities in the same places, the finite entries equal to `rtol` (and `atol`)."""
    infinite = np.isinf(expected)
    return bool(
        np.array_equal(np.isinf(actual), infinite)
        and np.array_equal(actual[infinite], expected[infinite])
        and np.allclose(actual[~infinite], expected[~infinite], rtol=rtol, atol=atol)
    )


# A table within a millionth of the counts' rows: each gap ~1e-13 of its row's loss, right to this.
NEAR_RTOL = 1e-3
NEAR = (
    "the table is within a millionth of the counts' own rows, so each gap is about 1e-13 of its "
    "row's loss, and this one keeps too few of its digits: a difference of two nearly equal "
    "numbers loses the digits they share (which quantity of your derivation is small itself?)"
)


def _judge(N: np.ndarray, P: np.ndarray, what: str, near: bool = False) -> Check:
    V = N.shape[0]
    floor, gaps = reference_floor(N), reference_gaps(N, P, exact=near)
    rtol, atol = (NEAR_RTOL, 0.0) if near else (1e-9, 1e-12)
    wrong_gaps = _wrong_gaps(N, P)

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        got_floor, got_gaps = tuple_answer(outcome, ["floor", "gaps"])
        with labelled("floor"):
            got_floor = as_number(got_floor)
            if math.isnan(got_floor):
                raise CheckFailed(
                    "the floor is nan: a cell with no pairs contributes nothing (0 log 0 counts as "
                    "0), though NumPy computes 0 * log 0 as nan"
                )
            expect_close(
                got_floor, floor, rtol=1e-9, atol=1e-12, diagnoses=_wrong_floors(N, P), strict=True
            )
        with labelled("gaps"):
            got_gaps = as_array(got_gaps, (V,), kinds="f")
            empty = N.sum(axis=1) == 0
            if np.isnan(got_gaps).any():
                raise CheckFailed(
                    "a gap is nan: a cell with no pairs, or a row whose token never occurs, "
                    "contributes nothing, though NumPy computes 0 * log 0 and 0 * inf as nan"
                )
            if np.any(got_gaps[empty] != 0):
                raise CheckFailed(
                    "a row whose previous token never occurs has a nonzero gap: its pairs are "
                    "none of the loss"
                )
            for hint, wrong in wrong_gaps:  # a slip may move the infinities too
                if _same(got_gaps, wrong, rtol, atol) and not _same(got_gaps, gaps, rtol, atol):
                    raise CheckFailed(hint)
            infinite = np.isinf(gaps)
            if not np.array_equal(np.isinf(got_gaps), infinite):
                row = int(np.argmax(np.isinf(got_gaps) != infinite))
                raise CheckFailed(
                    f"row {row}: gap {got_gaps[row]}, expected {gaps[row]}: a model that gives "
                    "probability 0 to a pair that occurs has an infinite loss, and only then"
                )
            finite = ~infinite
            if near and not _same(got_gaps, gaps, rtol, atol):
                raise CheckFailed(NEAR)
            expect_close(
                got_gaps[finite],
                gaps[finite],
                rtol=rtol,
                atol=atol,
                diagnoses=[(hint, wrong[finite]) for hint, wrong in wrong_gaps],
                strict=True,
            )
        expect_unchanged(outcome, (N, P))

    return Check(what, [Call((N, P))], judge)


def _rejects(N: object, P: object, what: str, hint: str) -> Check:
    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        expect_raises(outcome, "ValueError", hint)

    return Check(what, [Call((N, P))], judge)


def _rows(rng: np.random.Generator, V: int, zeros: float = 0.0) -> np.ndarray:
    """V random distributions, a fraction `zeros` of their entries exactly 0 (never a whole row)."""
    P = rng.dirichlet(np.ones(V), size=V)
    P[rng.random((V, V)) < zeros] = 0.0
    P[np.arange(V), rng.integers(0, V, V)] += 0.1
    return P / P.sum(axis=1, keepdims=True)


def _counts(rng: np.random.Generator, V: int, empty_rows: int, scale: int) -> np.ndarray:
    N = rng.integers(0, scale, (V, V)) * (rng.random((V, V)) < 0.7)
    N[rng.choice(V, empty_rows, replace=False)] = 0
    N[rng.choice([i for i in range(V) if N[i].sum() > 0] or [0]), 0] += 1
    return N


def loss_floor_and_gaps_checks(rng: np.random.Generator) -> list[Check]:
    """The stream by hand; random tables with empty rows and cells; zero and infinite gaps; bad input."""
    stream = np.array([[0, 100, 0, 0], [0, 0, 50, 50], [50, 0, 0, 0], [49, 0, 0, 0]])
    checks = [
        _judge(stream, np.full((4, 4), 0.25), "the stream 0 1 2 0 1 3 ... against a uniform model"),
        _judge(
            stream.astype(float), _ml_row_table(stream), "the stream against its own rows: no gap"
        ),
    ]
    for V, empty, scale in [(4, 1, 5), (6, 2, 20), (9, 3, 3), (5, 0, 1000)]:
        N = _counts(rng, V, empty, scale)
        checks.append(_judge(N, _rows(rng, V), f"random {V}x{V} counts, {empty} empty rows"))
    N = _counts(rng, 7, 2, 9)
    checks.append(_judge(N, _ml_row_table(N), "a model equal to the counts' own rows: every gap 0"))
    P = _rows(rng, 7, zeros=0.3)
    checks.append(
        _judge(
            N, P, "a model with zeros: infinite gaps where a pair that occurs gets probability 0"
        )
    )
    N = rng.integers(0, 200_000, (5, 5)).astype(np.float64) + rng.random((5, 5))
    checks.append(_judge(N, _rows(rng, 5), "float counts in the hundred thousands"))
    N = _counts(rng, 5, 1, 6)
    checks.append(_judge(N, np.full((5, 5), 0.2), "a uniform model"))
    # 60x60: larger tables separate the forms no better and cost the catalogue seconds
    N = rng.integers(1, 100, (60, 60)) * (rng.random((60, 60)) < 0.8)
    N[:, 0] += 1  # no empty row: every row has a gap
    near = _ml_row_table(N) * (1 + 1e-6 * rng.standard_normal((60, 60)))
    checks.append(
        _judge(
            N,
            near / near.sum(axis=1, keepdims=True),
            "a 60x60 model within a millionth of the counts' rows (gaps 1e-13 of the loss)",
            near=True,
        )
    )
    good_N, good_P = _counts(rng, 4, 0, 5), _rows(rng, 4)
    bad_row, negative, bad_N = good_P.copy(), good_P.copy(), good_N.copy()
    bad_row[1] *= 1.1
    negative[2] = [1.2, -0.2, 0.0, 0.0]
    bad_N[0, 0] = -1
    checks += [
        _rejects(bad_N, good_P, "a negative count raises ValueError", "counts are never negative"),
        _rejects(
            np.zeros((4, 4)),
            good_P,
            "no pairs at all raises ValueError",
            "the mean of no pairs is undefined",
        ),
        _rejects(
            good_N,
            good_P[:3],
            "a (3, 4) model for (4, 4) counts raises ValueError",
            "N and P are both (V, V)",
        ),
        _rejects(
            good_N[:, :3],
            good_P[:, :3],
            "non-square tables raise ValueError",
            "N and P are both (V, V)",
        ),
        _rejects(
            good_N,
            bad_row,
            "a model row summing to 1.1 raises ValueError",
            "each row of P is a distribution",
        ),
        _rejects(
            good_N,
            negative,
            "a model row with a negative entry raises ValueError",
            "each row of P is a distribution",
        ),
    ]
    return checks


def _ml_row_table(N: np.ndarray) -> np.ndarray:
    """The maximum-likelihood rows; a row without counts is uniform (any distribution would do)."""
    V = N.shape[1]
    return np.array(
        [_ml_row(row) if sum(row) > 0 else [1 / V] * V for row in N.astype(float).tolist()]
    )
