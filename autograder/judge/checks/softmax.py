"""Hidden checks for chapter 02's `softmax`: small visible cases, random shapes and axes, logits of +-1000, rows on very different scales."""

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.layouts import with_layout
from autograder.judge.checks.neural_bigram_shared import reference_softmax
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    array_answer,
    expect_close,
    expect_unchanged,
)
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="softmax",
    chapter="02_neural_bigram",
    points=2,
    kind="derive",
    library=("sampling:filter_probs",),
)


def _wrong_softmaxes(logits: np.ndarray, axis: int) -> list[tuple[str, np.ndarray]]:
    """What the classic mistakes compute, for matching an answer that has nan or inf in it."""
    variants = [
        (
            "exp overflows for large logits: e**1000 is inf in float64 (what can you change in the logits without changing the softmax?)",
            lambda: np.exp(logits) / np.exp(logits).sum(axis=axis, keepdims=True),
        ),
        (
            "a slice far below the largest logit of the whole array underflows to 0/0: one shift "
            "serves every slice (which shift is each slice's own?)",
            lambda: (
                np.exp(logits - logits.max())
                / np.exp(logits - logits.max()).sum(axis=axis, keepdims=True)
            ),
        ),
        (
            "the per-slice reductions broadcast along the wrong axis (look at their shapes)",
            lambda: (
                np.exp(logits - logits.max(axis=axis))
                / np.exp(logits - logits.max(axis=axis)).sum(axis=axis)
            ),
        ),
    ]
    out = []
    for hint, compute in variants:
        try:
            with np.errstate(all="ignore"):
                candidate = compute()
        except ValueError:  # shapes that do not broadcast
            continue
        if candidate.shape == logits.shape:
            out.append((hint, candidate))
    return out


def matches_with_nan(candidate: np.ndarray, actual: np.ndarray) -> bool:
    """True when both have nan/inf in the same places and agree elsewhere."""
    bad_c, bad_a = ~np.isfinite(candidate), ~np.isfinite(actual)
    return bool(np.array_equal(bad_c, bad_a) and np.allclose(candidate[~bad_c], actual[~bad_a]))


def _judge_softmax(logits: np.ndarray, axis: int | None, what: str) -> Check:
    rtol = 1e-5 if logits.dtype == np.float32 else 1e-7  # float32 logits may give float32 answers
    size = float(
        np.abs(logits).max(initial=0)
    )  # float32 inside: see autograder.judge.expect.tolerance
    effective = -1 if axis is None else axis
    expected = reference_softmax(logits, effective)
    other_axes = [a for a in range(logits.ndim) if a != effective % logits.ndim]
    wrong = _wrong_softmaxes(logits, effective)
    diagnoses = [
        (
            f"normalised along the wrong axis: the contract normalises along axis={effective}",
            reference_softmax(logits, a),
        )
        for a in other_axes
    ] + wrong
    call = Call((logits,)) if axis is None else Call((logits,), {"axis": axis})

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        probs = array_answer(outcome, logits.shape, kinds="f")
        if not np.isfinite(probs).all():
            known = [hint for hint, candidate in wrong if matches_with_nan(candidate, probs)]
            raise CheckFailed(
                "; or ".join(known) if known else "got nan or inf: exp overflows or underflows"
            )
        expect_close(probs, expected, rtol=rtol, atol=rtol * 1e-5, diagnoses=diagnoses, inputs=size)
        expect_unchanged(outcome, (logits,))

    return Check(what, [call], judge)


def softmax_checks(rng: np.random.Generator) -> list[Check]:
    """Small visible cases, random shapes and axes, logits of +-1000, rows on very different scales."""
    checks = [
        _judge_softmax(np.array([1.0, 2.0, 3.0]), None, "the visible example [1, 2, 3]"),
        _judge_softmax(
            np.array([[1000.0, 1000.0], [-1000.0, -999.0]]), None, "the visible example with +-1000"
        ),
        _judge_softmax(np.array([[1.0, 2.0], [3.0, 5.0]]), 0, "a 2x2 example along axis=0"),
    ]
    for shape, axis in [
        ((7,), -1),
        ((4, 9), -1),
        ((4, 9), 1),
        ((6, 5), 0),
        ((3, 4, 5), -1),
        ((3, 4, 5), 1),
        ((3, 4, 5), 0),
        ((2, 3, 4), -2),
    ]:
        checks.append(
            _judge_softmax(
                rng.normal(0, 3, size=shape), axis, f"random logits {shape}, axis={axis}"
            )
        )
    huge = rng.uniform(-1000, 1000, size=(5, 6))
    checks.append(_judge_softmax(huge, None, "random logits in [-1000, 1000]"))
    scales = np.array([[1000.0, 999.0, 998.0], [0.0, 1.0, 2.0], [-1000.0, -1001.0, -999.5]])
    checks.append(_judge_softmax(scales, None, "rows on very different scales"))
    square = rng.normal(0, 2, size=(4, 4))
    checks.append(_judge_softmax(square, None, "a square matrix (catches missing keepdims)"))
    checks += [
        _judge_softmax(
            rng.normal(0, 2, size=(3, 5)) - 1000.0, None, "every logit near -1000 (exp underflows)"
        ),
        _judge_softmax(
            rng.normal(0, 3, size=(4, 6)).astype(np.float32), -1, "float32 logits (left unmodified)"
        ),
        _judge_softmax(rng.integers(-5, 6, size=(3, 4)), None, "integer logits (left unmodified)"),
        _judge_softmax(
            (scales + rng.normal(0, 0.5, scales.shape)).T,
            0,
            "columns on very different scales, axis=0",
        ),
        _judge_softmax(
            rng.normal(0, 2, (2, 4, 3))
            + rng.permutation([1000.0, 0.0, -1000.0] * 2).reshape(2, 1, 3),
            1,
            "slices along axis=1 on very different scales",
        ),
        _judge_softmax(rng.normal(0, 2, size=(1, 6)), None, "a single row (1, V)"),
        _judge_softmax(rng.normal(0, 2, size=(5, 1)), None, "rows of one entry (V = 1): all ones"),
        _judge_softmax(np.array([4.0]), None, "a single logit"),
        _judge_softmax(rng.integers(-1000, 1001, size=(4, 5)), None, "integer logits of +-1000"),
        _judge_softmax(
            np.array([[1e6, 1e6 - 1.0, -1e6], [-1e6, -1e6 - 2.0, 0.5 - 1e6]]),
            None,
            "logits of +-10**6, past the exponential's range in every float type",
        ),
        _judge_softmax(
            np.array([0.0, 1e6, 1e6 - 1.0]), None, "a first logit 10**6 below the others"
        ),
    ]
    checks += [
        with_layout(_judge_softmax(rng.normal(0, 3, (4, 6)), -1, "random logits (4, 6)"), layout)
        for layout in ("transposed", "strided")
    ]
    checks.append(
        with_layout(_judge_softmax(rng.normal(0, 3, (3, 5)), 0, "random logits, axis=0"), "strided")
    )
    return checks
