"""Hidden checks for chapter 02: softmax, cross_entropy, bigram_loss_and_grad.

References are per-row loops in Python floats (math.fsum of exp after shifting by the row's max);
tests/test_references.py proves them against central finite differences.
"""

import math

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.layouts import with_layout
from autograder.judge.expect import (
    array_answer,
    as_array,
    as_number,
    expect_close,
    expect_raises,
    expect_unchanged,
    labelled,
    number_answer,
    tuple_answer,
)
from autograder.sandbox.guest.calls import Call, Outcome


def row_softmax(row: np.ndarray) -> list[float]:
    """Softmax of one 1-D row by a loop, shifted by the row's own max."""
    row = [float(x) for x in row]
    top = max(row)
    exps = [math.exp(x - top) for x in row]
    total = math.fsum(exps)
    return [e / total for e in exps]


def reference_softmax(logits: np.ndarray, axis: int) -> np.ndarray:
    """Softmax along `axis` by looping over every 1-D slice."""
    moved = np.moveaxis(np.asarray(logits, dtype=np.float64), axis, -1)
    out = np.empty(moved.shape)
    for index in np.ndindex(moved.shape[:-1]):
        out[index] = row_softmax(moved[index])
    return np.moveaxis(out, -1, axis)


def reference_ce(logits: np.ndarray, targets: np.ndarray) -> float:
    """Mean -log softmax[target] by a loop, with log-sum-exp."""
    total = 0.0
    for row, target in zip(logits, targets, strict=True):
        row = [float(x) for x in row]
        top = max(row)
        total += top + math.log(math.fsum(math.exp(x - top) for x in row)) - row[target]
    return total / len(targets)


# ---------------------------------------------------------------- softmax


def _wrong_softmaxes(logits: np.ndarray, axis: int) -> list[tuple[str, np.ndarray]]:
    """What the classic mistakes compute, for matching an answer that has nan or inf in it."""
    variants = [
        (
            "exp overflows for large logits: e**1000 is inf in float64 (what can you change in the logits without changing the softmax?)",
            lambda: np.exp(logits) / np.exp(logits).sum(axis=axis, keepdims=True),
        ),
        (
            "a slice far below the largest logit of the whole array underflows to 0/0: the shift is shared by every slice instead of being each slice's own",
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
    ]
    checks += [
        with_layout(_judge_softmax(rng.normal(0, 3, (4, 6)), -1, "random logits (4, 6)"), layout)
        for layout in ("transposed", "strided")
    ]
    checks.append(
        with_layout(_judge_softmax(rng.normal(0, 3, (3, 5)), 0, "random logits, axis=0"), "strided")
    )
    return checks


# ---------------------------------------------------------------- cross_entropy


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
                    "to log 0: the shift is shared by every row instead of being each row's own"
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


# ---------------------------------------------------------------- bigram_loss_and_grad


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
