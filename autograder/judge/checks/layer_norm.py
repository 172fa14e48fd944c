"""Hidden checks for chapter 07's `layer_norm`: 1-d, 2-d and 3-d inputs, default and large eps, constant rows, a large mean, bad gamma."""

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.attention_shared import (
    RTOL,
    _rejects,
    different_scales,
    reference_layer_norm,
)
from autograder.judge.checks.layouts import in_layout
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    as_array,
    expect_close,
    expect_fresh,
    expect_unchanged,
    matches,
    value_of,
)
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="layer_norm",
    chapter="07_attention",
    points=2,
    kind="debug",
)


def layer_norm_variants(
    x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float
) -> list[tuple[str, np.ndarray | None]]:
    """(hint, output) for the classic layer-norm mistakes."""
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    with np.errstate(all="ignore"):
        naive_var = (x**2).mean(axis=-1, keepdims=True) - mean**2
        return [
            (
                "the spread is slightly off, more so for small C: is the variance divided by C or by C - 1?",
                reference_layer_norm(x, gamma, beta, eps, ddof=1) if x.shape[-1] > 1 else None,
            ),
            (
                "the output differs where the variance is tiny: where does eps enter the denominator?",
                (x - mean) / (np.sqrt(var) + eps) * gamma + beta,
            ),
            (
                "eps was left out: the output is what eps = 0 gives",
                (x - mean) / np.sqrt(var) * gamma + beta,
            ),
            (
                "normalised over the batch: layer norm normalises each position over its own features",
                (x - x.mean(axis=0)) / np.sqrt(x.var(axis=0) + eps) * gamma + beta
                if x.ndim > 1 and x.shape[0] > 1
                else None,
            ),
            (
                "the eps argument was ignored: the result is the same for every eps",
                reference_layer_norm(x, gamma, beta, 1e-5) if eps != 1e-5 else None,
            ),
            (
                "gamma and beta were ignored: the output is the normalised x alone",
                (x - mean) / np.sqrt(var + eps),
            ),
            (
                "gamma scales and beta shifts, not the other way round",
                (x - mean) / np.sqrt(var + eps) * beta + gamma,
            ),
            (
                "the variance loses every digit when the mean is large: a difference of two "
                "large, nearly equal numbers (catastrophic cancellation)",
                (x - mean) / np.sqrt(naive_var + eps) * gamma + beta,
            ),
        ]


def _judge_layer_norm(
    x: np.ndarray,
    gamma: np.ndarray,
    beta: np.ndarray,
    eps: float | None,
    what: str,
    note: str = "",
    atol: float = 1e-8,
    layout: str | None = None,
) -> Check:
    e = 1e-5 if eps is None else eps
    expected = reference_layer_norm(x, gamma, beta, e)
    strict = bool(note)  # a row of mean 1e6 times its spread needs float64: float32 cannot hold it
    diagnoses = [
        (hint, candidate)
        for hint, candidate in layer_norm_variants(x, gamma, beta, e)
        if candidate is not None and not matches(candidate, expected, RTOL, atol, strict)
    ]
    call = Call((x, gamma, beta), {} if eps is None else {"eps": eps})

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        answer = as_array(value_of(outcome), x.shape)
        if not np.isfinite(answer).all():
            raise CheckFailed(
                "got nan or inf: a square root of a negative number, or a division by 0 (where "
                "does eps enter, and can the variance come out negative on a nearly constant row?)"
            )
        expect_close(answer, expected, RTOL, atol, diagnoses=diagnoses, note=note, strict=strict)
        expect_unchanged(outcome, (x, gamma, beta))
        expect_fresh(outcome, ("x", "gamma", "beta"))

    return in_layout(Check(what, [call], judge), layout)


def layer_norm_checks(rng: np.random.Generator) -> list[Check]:
    """1-d, 2-d and 3-d inputs, default and large eps, constant rows, a large mean, bad gamma."""
    checks = []
    for shape, eps in [
        ((6,), None),
        ((4, 5), None),
        ((2, 3, 8), 1e-5),
        ((3, 4, 2), 0.5),
        ((5, 7), 0.1),
        ((2, 2, 3, 4), None),
    ]:
        C = shape[-1]
        x = rng.normal(rng.normal(0, 2), rng.uniform(0.3, 3), shape)
        gamma, beta = rng.normal(1, 0.5, C), rng.normal(0, 0.5, C)
        checks.append(
            _judge_layer_norm(
                x, gamma, beta, eps, f"x of shape {shape}, eps {'default' if eps is None else eps}"
            )
        )
    x = np.repeat(rng.normal(size=(3, 1)), 4, axis=1)
    x[1] += rng.normal(size=4)
    checks.append(
        _judge_layer_norm(
            x, rng.normal(size=4), rng.normal(size=4), None, "constant rows (variance 0) give beta"
        )
    )
    x = rng.normal(rng.normal(0, 0.1), 0.01, (4, 6))  # eps a tenth of the variance
    checks.append(
        _judge_layer_norm(
            x,
            rng.normal(1, 0.5, 6),
            rng.normal(0, 0.5, 6),
            None,
            "a spread of 0.01 with the default eps (1e-5, a tenth of the variance)",
        )
    )
    x = 1e8 + rng.normal(size=(2, 6))
    checks.append(
        _judge_layer_norm(
            x,
            np.ones(6),
            np.zeros(6),
            1e-5,
            "a mean of 1e8 with unit spread",
            note=" (with a mean of 1e8, a variance taken as the difference of two large, nearly"
            " equal numbers loses every digit; float32 loses them too: its 7 digits cannot hold"
            " 1e8 + x)",
            # x itself holds only ~1.5e-8 of absolute precision at 1e8: correct ways of taking the
            # mean differ by that much after normalising; the cancellation bug is off by O(1)
            atol=1e-6,
        )
    )
    x = rng.normal(size=(2, 3, 4))
    checks.append(
        _judge_layer_norm(x, rng.normal(size=4), rng.normal(size=4), 1e-5, "C = 4, random affine")
    )
    checks.append(
        _judge_layer_norm(
            different_scales(rng, 6),
            rng.normal(1, 0.5, 6),
            rng.normal(size=6),
            1e-5,
            "rows of very different means and spreads (1e6 beside 0, spreads 1e-2 to 1e4)",
            note=" (a row of mean 1e6 or -3e4: a variance taken as the difference of two large, "
            "nearly equal numbers loses every digit, and float32's 7 digits cannot hold such a row: float64's 16 can)",
        )
    )
    x = rng.normal(size=(2, 3, 5))
    checks.append(
        _judge_layer_norm(
            x,
            rng.normal(size=5),
            rng.normal(size=5),
            1e-5,
            "non-contiguous inputs",
            layout="strided",
        )
    )
    return checks + layer_norm_shape_checks(rng)


def layer_norm_shape_checks(rng: np.random.Generator) -> list[Check]:
    """gamma and beta each of a shape that would broadcast: (1,), (1, C), (C, 1), (), and (T,)."""
    x = rng.normal(size=(2, 3, 4))  # T = 3, C = 4
    hint = "gamma and beta must have shape (C,)"
    checks = []
    for index, name in enumerate(("gamma", "beta")):
        for bad in (np.ones(1), np.ones((1, 4)), np.ones((4, 1)), np.array(1.0), np.ones(3)):
            args = [x, np.ones(4), np.zeros(4)]
            args[1 + index] = bad
            checks.append(
                _rejects(
                    tuple(args),
                    {},
                    f"{name} of shape {bad.shape} for x of shape (2, 3, 4) raises ValueError",
                    hint,
                )
            )
    return checks
