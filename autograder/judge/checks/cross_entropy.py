"""Hidden checks for chapter 02's `cross_entropy`: visible cases, random batches, repeated targets, logits of +-1000, and shapes to reject."""

import math

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.layouts import with_layout
from autograder.judge.checks.neural_bigram_shared import reference_ce, reference_softmax
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    expect_close,
    expect_raises,
    expect_unchanged,
    number_answer,
)
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="cross_entropy",
    chapter="02_neural_bigram",
    points=2,
    kind="derive",
    library=("nplm:nplm_mean_loss",),
)


def _judge_ce(logits: np.ndarray, targets: np.ndarray, what: str) -> Check:
    expected = reference_ce(logits, targets)
    rtol = 1e-5 if logits.dtype == np.float32 else 1e-7
    size = float(
        np.abs(logits).max(initial=0)
    )  # float32 inside: see autograder.judge.expect.tolerance
    B = len(targets)
    with np.errstate(all="ignore"):
        naive = np.exp(logits) / np.exp(logits).sum(axis=-1, keepdims=True)
        diagnoses = [
            (
                "the loss is off by each row's largest logit: a shift taken out of the log-sum-exp "
                "must come back outside the log",
                expected - float(np.mean(np.max(logits.astype(np.float64), axis=-1))),
            ),
            ("that is the sum over the batch, not the mean", expected * B),
            ("the sign is wrong: the loss is -log p[target]", -expected),
            (
                "the loss mixes rows and targets: logits[:, targets] picks a (B, B) block, not one logit per row",
                float(np.mean(-np.log(reference_softmax(logits, -1)[:, targets] + 0.0))),
            ),
            ("that is in bits: the loss is in nats", expected / math.log(2)),
            (
                "softmax was taken over the batch (axis 0), not over the vocabulary",
                float(np.mean(-np.log(reference_softmax(logits, 0)[np.arange(B), targets]))),
            ),
        ]

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        value = number_answer(outcome)
        if not math.isfinite(value):
            with np.errstate(all="ignore"):
                naive_loss = -np.log(naive[np.arange(B), targets])
            shifted = logits - np.max(logits)
            batch_max = -(shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True)))
            if not np.isfinite(batch_max[np.arange(B), targets]).all():
                raise CheckFailed(
                    f"got {value}: a row far below the largest logit of the whole batch underflows "
                    "to log 0: one shift serves every row (which shift is each row's own?)"
                )
            if not np.isfinite(naive_loss).all():
                raise CheckFailed(
                    f"got {value}: log(softmax) underflows or overflows for large logits (can the "
                    "log be taken before the exp is ever computed?)"
                )
            raise CheckFailed(f"got {value} for finite logits")
        expect_close(value, expected, rtol=rtol, atol=rtol * 1e-2, diagnoses=diagnoses, inputs=size)
        expect_unchanged(outcome, (logits, targets))

    return Check(what, [Call((logits, targets))], judge)


def _judge_ce_rejects(logits: np.ndarray, targets: np.ndarray, what: str) -> Check:
    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        expect_raises(outcome, "ValueError", "check that logits are (B, V) and targets (B,)")

    return Check(what, [Call((logits, targets))], judge)


def cross_entropy_checks(rng: np.random.Generator) -> list[Check]:
    """Visible cases, random batches, repeated targets, logits of +-1000, and shapes to reject."""
    checks = [
        _judge_ce(np.zeros((2, 4)), np.array([0, 3]), "the visible example: zero logits give ln V"),
        _judge_ce(
            np.array([[1000.0, 0.0], [0.0, 1000.0]]),
            np.array([1, 1]),
            "the visible example with logits of 1000",
        ),
    ]
    for B, V in [(1, 2), (5, 3), (32, 27), (7, 50)]:
        checks.append(
            _judge_ce(rng.normal(0, 2, (B, V)), rng.integers(0, V, B), f"random logits ({B}, {V})")
        )
    checks.append(_judge_ce(rng.normal(0, 1, (12, 5)), np.full(12, 2), "every target the same"))
    checks.append(
        _judge_ce(
            rng.uniform(-1000, 1000, (6, 8)), rng.integers(0, 8, 6), "logits in [-1000, 1000]"
        )
    )
    checks += [
        _judge_ce(
            rng.normal(0, 2, (6, 5)) - 1000.0,
            rng.integers(0, 5, 6),
            "every logit near -1000 (exp underflows)",
        ),
        _judge_ce(
            rng.normal(0, 2, (5, 4)).astype(np.float32),
            rng.integers(0, 4, 5),
            "float32 logits (left unmodified)",
        ),
        _judge_ce(
            rng.integers(-4, 5, (4, 3)),
            rng.integers(0, 3, 4).astype(np.int32),
            "integer logits and int32 targets",
        ),
        _judge_ce(
            rng.normal(0, 1, (6, 5)) + rng.permutation([1000.0, 0.0, -1000.0] * 2)[:, None],
            rng.integers(0, 5, 6),
            "rows on very different scales (+1000, 0, -1000)",
        ),
        _judge_ce(
            rng.integers(-1000, 1001, (5, 4)), rng.integers(0, 4, 5), "integer logits of +-1000"
        ),
        _judge_ce(rng.normal(0, 2, (4, 1)), np.zeros(4, dtype=np.int64), "V = 1: the loss is 0"),
        _judge_ce(
            1e6 + np.array([[0.0, -1.0, -3.0], [-2.0, 0.0, -1.0]]),
            np.array([1, 0]),
            "logits near 10**6, past the exponential's range in every float type",
        ),
        _judge_ce(
            -1e6 + np.array([[0.0, -1.0, -3.0], [-2.0, 0.0, -1.0]]),
            np.array([2, 1]),
            "logits near -10**6, where every float type's exponential is 0",
        ),
        _judge_ce(
            np.array([[0.0, 1e6, 1e6 - 1.0]]), np.array([2]), "a first logit 10**6 below the others"
        ),
    ]
    checks += [
        with_layout(
            _judge_ce(rng.normal(0, 2, (6, 5)), rng.integers(0, 5, 6), "random logits (6, 5)"),
            layout,
        )
        for layout in ("transposed", "strided")
    ]
    checks += [
        _judge_ce_rejects(rng.normal(size=5), np.array([1]), "1-D logits raise ValueError"),
        _judge_ce_rejects(
            rng.normal(size=(2, 3, 4)), np.array([0, 1]), "3-D logits raise ValueError"
        ),
        _judge_ce_rejects(
            rng.normal(size=(3, 4)), np.array([[0], [1], [2]]), "2-D targets raise ValueError"
        ),
        _judge_ce_rejects(
            rng.normal(size=(3, 4)), np.array([0, 1]), "3 rows of logits, 2 targets: ValueError"
        ),
        _judge_ce_rejects(
            rng.normal(size=(3, 4)),
            np.array([1]),
            "3 rows of logits, 1 target (it would broadcast): ValueError",
        ),
        _judge_ce_rejects(
            rng.normal(size=(1, 4)),
            np.array([0, 2, 1]),
            "1 row of logits, 3 targets (it would broadcast): ValueError",
        ),
        _judge_ce_rejects(rng.normal(size=(3, 4)), np.array(2), "0-d targets: ValueError"),
        _judge_ce_rejects(np.array(1.5), np.array([0]), "0-d logits: ValueError"),
    ]
    return checks
