"""Hidden checks for chapter 02's `bigram_loss_and_grad`: visible case, random tables and batches, one previous token repeated many times, large values."""

import numpy as np

from autograder.judge.check import Check
from autograder.judge.checks.layouts import with_layout
from autograder.judge.checks.neural_bigram_shared import (
    reference_ce,
    reference_softmax,
    row_softmax,
)
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    as_array,
    as_number,
    expect_close,
    expect_unchanged,
    labelled,
    tuple_answer,
)
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="bigram_loss_and_grad",
    chapter="02_neural_bigram",
    points=3,
    kind="derive",
    grader=("probes:softmax_regression",),
    given_in_text=(
        "(loss,grad)",
        "len(previous)",
        "logits=table[previous]",
        "softmax(logits)",
        "table[previous]",
    ),
)


def reference_table_grad(
    table: np.ndarray, previous: np.ndarray, targets: np.ndarray
) -> np.ndarray:
    """d mean CE / d table by a loop over examples: row `previous` gains (softmax - onehot) / B."""
    grad = np.zeros(table.shape)
    for prev, target in zip(previous, targets, strict=True):
        row = np.array(row_softmax(table[prev]))
        row[target] -= 1.0
        grad[prev] += row / len(previous)
    return grad


def _loss_of_table(table: np.ndarray, previous: np.ndarray, targets: np.ndarray) -> float:
    return reference_ce(table[previous], targets)


def _judge_bigram(table: np.ndarray, previous: np.ndarray, targets: np.ndarray, what: str) -> Check:
    rtol = 1e-5 if table.dtype == np.float32 else 1e-7
    size = float(np.abs(table[previous]).max(initial=0))  # see autograder.judge.expect.tolerance
    expected_loss = _loss_of_table(table, previous, targets)
    B = len(previous)
    dlogits = reference_softmax(table[previous], -1)
    dlogits[np.arange(B), targets] -= 1
    dlogits /= B
    expected_grad = reference_table_grad(table, previous, targets)
    overwritten = np.zeros(table.shape)
    overwritten[previous] = dlogits
    no_onehot = np.zeros(table.shape)
    np.add.at(no_onehot, previous, reference_softmax(table[previous], -1) / B)
    # two slips of the derivation: the normaliser's term kept at the target's logit alone, and the
    # chain rule stopped at the probability (d(-log p_y)/dp_y) instead of reaching the logits
    p_target = reference_softmax(table[previous], -1)[np.arange(B), targets]
    target_only, of_probability = np.zeros(table.shape), np.zeros(table.shape)
    np.add.at(target_only, (previous, targets), (p_target - 1) / B)
    with np.errstate(divide="ignore"):
        np.add.at(of_probability, (previous, targets), -1 / (p_target * B))
    diagnoses = [
        ("the gradient is exactly B times too large: the loss is a mean", expected_grad * B),
        ("the gradient is B times too small: the mean divides by B once", expected_grad / B),
        (
            "only rows whose previous token repeats in the batch are wrong: repeated indices in one assignment keep only one of their updates",
            overwritten,
        ),
        ("the gradient has the wrong sign", -expected_grad),
        (
            "the gradient misses the target's term: what does -log p[target] add at the target's logit?",
            no_onehot,
        ),
        (
            "only the targets' logits have a gradient: the log-sum-exp term depends on every logit "
            "of the row, so every logit of a used row moves the loss",
            target_only,
        ),
        (
            "this is the derivative with respect to the target's probability, not its logit: the "
            "chain rule goes on through the softmax",
            of_probability,
        ),
    ]

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        loss, grad = tuple_answer(outcome, ["loss", "grad"])
        with labelled("loss"):
            loss = as_number(loss)
        grad = as_array(grad, table.shape, kinds="f")
        with labelled("loss"):
            expect_close(
                loss,
                expected_loss,
                rtol=rtol,
                atol=rtol * 1e-2,
                diagnoses=[("the loss is the sum over the batch, not the mean", expected_loss * B)],
                inputs=size,
            )
        with labelled("gradient"):
            expect_close(
                grad, expected_grad, rtol=1e-5, atol=1e-8, diagnoses=diagnoses, inputs=size
            )
        expect_unchanged(outcome, (table, previous, targets))

    return Check(what, [Call((table, previous, targets))], judge)


def bigram_loss_and_grad_checks(rng: np.random.Generator) -> list[Check]:
    """Visible case, random tables and batches, one previous token repeated many times, large values."""
    checks = [
        _judge_bigram(
            np.zeros((3, 3)),
            np.array([0, 1]),
            np.array([1, 2]),
            "the visible example: a zero table",
        ),
        _judge_bigram(
            np.random.default_rng(0).normal(size=(3, 3)),
            np.array([0, 0, 0, 2]),
            np.array([1, 2, 1, 0]),
            "the visible example: token 0 repeats",
        ),
    ]
    for V, B in [(4, 6), (7, 20), (10, 3), (5, 1)]:
        table = rng.normal(0, 1.5, (V, V))
        checks.append(
            _judge_bigram(
                table,
                rng.integers(0, V, B),
                rng.integers(0, V, B),
                f"random {V}x{V} table, batch {B}",
            )
        )
    V, B = 6, 40
    previous = np.where(rng.random(B) < 0.8, 2, rng.integers(0, V, B))
    checks.append(
        _judge_bigram(
            rng.normal(size=(V, V)),
            previous,
            rng.integers(0, V, B),
            "one previous token fills most of the batch",
        )
    )
    checks.append(
        _judge_bigram(
            rng.normal(0, 1, (5, 5)) + 1000.0 * np.eye(5),
            rng.integers(0, 5, 9),
            rng.integers(0, 5, 9),
            "table entries around 1000",
        )
    )
    checks += [
        _judge_bigram(
            rng.normal(0, 1, (4, 4)) - 1000.0,
            rng.integers(0, 4, 7),
            rng.integers(0, 4, 7),
            "every table entry near -1000 (exp underflows)",
        ),
        _judge_bigram(
            rng.normal(0, 1, (5, 5)).astype(np.float32),
            np.array([1, 1, 3, 1, 0], dtype=np.int32),
            rng.integers(0, 5, 5).astype(np.int32),
            "a float32 table and int32 ids (left unmodified)",
        ),
        _judge_bigram(
            rng.normal(0, 1, (6, 6)) + rng.permutation([1000.0, 0.0, -1000.0] * 2)[:, None],
            rng.permutation(np.arange(12) % 6),
            rng.integers(0, 6, 12),
            "table rows on very different scales (+1000, 0, -1000)",
        ),
        _judge_bigram(
            rng.integers(-3, 4, (4, 4)),
            np.array([0, 2, 2, 3, 0]),
            rng.integers(0, 4, 5),
            "an integer table: the gradient is still floats",
        ),
        _judge_bigram(rng.normal(size=(1, 1)), np.zeros(3, int), np.zeros(3, int), "V = 1"),
        _judge_bigram(
            rng.normal(0, 1, (4, 4)) + 1e6 * np.eye(4),
            rng.integers(0, 4, 9),
            rng.integers(0, 4, 9),
            "table entries near 10**6, past the exponential's range in every float type",
        ),
        # central differences over these 62,500 entries, each a loss over the batch, took about
        # 550 CPU-s on the course's machine (scaled from 1,250 entries); the checks have 30 s
        _judge_bigram(
            rng.normal(0, 2, (250, 250)),
            rng.integers(0, 250, 1500),
            rng.integers(0, 250, 1500),
            "a 250x250 table, batch 1500 (the exact gradient; no time for finite differences)",
        ),
    ]
    checks += [
        with_layout(
            _judge_bigram(
                rng.normal(0, 1.5, (5, 5)),
                rng.integers(0, 5, 8),
                rng.integers(0, 5, 8),
                "random 5x5 table, batch 8",
            ),
            layout,
        )
        for layout in ("transposed", "strided")
    ]
    return checks
