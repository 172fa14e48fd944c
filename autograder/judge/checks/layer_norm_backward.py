"""Hidden checks for chapter 07's `layer_norm_backward`: random 1-d, 2-d and 3-d inputs against central
differences, a large eps, rows of very different scales, activations too large for finite
differences, non-contiguous inputs, dout and gamma of wrong shapes."""

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.attention_shared import (
    _rejects,
    different_scales,
    reference_layer_norm,
)
from autograder.judge.checks.layouts import in_layout
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    as_array,
    expect_close,
    expect_closed_form,
    expect_fresh,
    expect_unchanged,
    labelled,
    matches,
    tuple_answer,
)
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="layer_norm_backward",
    chapter="07_attention",
    points=3,
    kind="derive",
    given_in_text=("(dx,dgamma,dbeta)", "C=x.shape[-1]", "x.shape[-1]"),
)


def finite_difference_layer_norm(
    dout: np.ndarray, x: np.ndarray, gamma: np.ndarray, eps: float, h: float = 1e-5
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Central differences in float64 of L = sum(dout * layer_norm(x, gamma, beta)) in x, gamma and beta."""
    beta = np.zeros_like(gamma)

    def loss(x_: np.ndarray, gamma_: np.ndarray, beta_: np.ndarray) -> float:
        return float(np.sum(dout * reference_layer_norm(x_, gamma_, beta_, eps)))

    def numeric(index: int) -> np.ndarray:
        args = [x.copy(), gamma.copy(), beta.copy()]
        target = args[index]
        grad = np.zeros_like(target)
        for i in np.ndindex(target.shape):
            saved = target[i]
            target[i] = saved + h
            up = loss(*args)
            target[i] = saved - h
            down = loss(*args)
            target[i] = saved
            grad[i] = (up - down) / (2 * h)
        return grad

    return numeric(0), numeric(1), numeric(2)


def layer_norm_backward_variants(
    dout: np.ndarray, x: np.ndarray, gamma: np.ndarray, eps: float
) -> tuple[list[tuple[str, np.ndarray]], list[tuple[str, np.ndarray]], np.ndarray]:
    """(dx diagnoses, dgamma diagnoses, the right dx in closed form): the classic mistakes of the
    backward pass, written out."""
    C = x.shape[-1]
    axes = tuple(range(x.ndim - 1))
    mean = x.mean(axis=-1, keepdims=True)
    std = np.sqrt(x.var(axis=-1, keepdims=True) + eps)
    xhat = (x - mean) / std
    g = dout * gamma  # gradient at x_hat
    unbiased_std = np.sqrt(x.var(axis=-1, keepdims=True, ddof=1) + eps) if C > 1 else std
    xhat_unbiased = (x - mean) / unbiased_std
    dx = [
        (
            "mean and variance depend on x too: dx needs the paths through them as well as the "
            "direct one (see the chapter's hints)",
            g / std,
        ),
        (
            "the path through the variance is missing: each x also moves its row's variance",
            (g - g.mean(axis=-1, keepdims=True)) / std,
        ),
        (
            "the path through the mean is missing: each x also moves its row's mean",
            (g - xhat * (g * xhat).mean(axis=-1, keepdims=True)) / std,
        ),
        (
            "dx ignores gamma: the gradient reaching x_hat goes through the scale",
            (dout - dout.mean(-1, keepdims=True) - xhat * (dout * xhat).mean(-1, keepdims=True))
            / std,
        ),
        (
            "the eps argument was ignored: the result is the same for every eps",
            layer_norm_backward_variants(dout, x, gamma, 1e-5)[2] if eps != 1e-5 else None,
        ),
        (
            "the variance loses every digit when the mean is large: a difference of two large, "
            "nearly equal numbers (catastrophic cancellation)",
            naive_variance_backward(dout, x, gamma, eps),
        ),
        (
            "the backward uses another variance than the forward (biased or unbiased?)",
            (
                g
                - g.mean(axis=-1, keepdims=True)
                - xhat_unbiased * (g * xhat_unbiased).sum(axis=-1, keepdims=True) / (C - 1)
            )
            / unbiased_std,
        ),
    ]
    correct = (
        g - g.mean(axis=-1, keepdims=True) - xhat * (g * xhat).mean(axis=-1, keepdims=True)
    ) / std
    dgamma = [
        (
            "dgamma came out as dbeta's value: the two are swapped (which of them does x_hat enter?)",
            dout.sum(axis=axes),
        ),
        (
            "dgamma uses x where gamma multiplies the normalised x",
            (dout * x).sum(axis=axes),
        ),
        (
            "dgamma and dbeta are averaged over the positions: what does each position that "
            "shares gamma add to its gradient?",
            (dout * xhat).mean(axis=axes),
        ),
    ]
    return [(h, c) for h, c in dx if c is not None], dgamma, correct


def closed_form_layer_norm_backward(
    dout: np.ndarray, x: np.ndarray, gamma: np.ndarray, eps: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """dx, dgamma, dbeta in closed form, two-pass statistics in float64 (checked against central
    differences wherever those are accurate)."""
    axes = tuple(range(x.ndim - 1))
    mean = x.mean(axis=-1, keepdims=True)
    std = np.sqrt(((x - mean) ** 2).mean(axis=-1, keepdims=True) + eps)
    xhat = (x - mean) / std
    g = dout * gamma
    dx = (g - g.mean(-1, keepdims=True) - xhat * (g * xhat).mean(-1, keepdims=True)) / std
    return dx, (dout * xhat).sum(axis=axes), dout.sum(axis=axes)


def naive_variance_backward(
    dout: np.ndarray, x: np.ndarray, gamma: np.ndarray, eps: float
) -> np.ndarray:
    """dx with the variance taken as mean(x^2) - mean^2 (the cancellation slip)."""
    mean = x.mean(axis=-1, keepdims=True)
    with np.errstate(all="ignore"):
        std = np.sqrt((x**2).mean(axis=-1, keepdims=True) - mean**2 + eps)
    xhat = (x - mean) / std
    g = dout * gamma
    return (g - g.mean(-1, keepdims=True) - xhat * (g * xhat).mean(-1, keepdims=True)) / std


def _judge_ln_backward(
    dout: np.ndarray,
    x: np.ndarray,
    gamma: np.ndarray,
    eps: float | None,
    what: str,
    finite_differences: bool = True,
    layout: str | None = None,
    cross_check: bool = True,
) -> Check:
    e = 1e-5 if eps is None else eps
    exact = closed_form_layer_norm_backward(dout, x, gamma, e)
    # finite differences carry an error of about 1e-9 here (none at all for the closed form, which
    # must then agree with them); where x is far from 0 they lose digits, and only the closed form
    # (checked against them in the other cases) is the reference
    rtol, atol = (1e-5, 1e-7) if finite_differences else (1e-6, 1e-7)
    strict = not finite_differences  # rows of mean 1e6 times their spread: float32 cannot hold them
    note = (
        ""
        if finite_differences
        else " (a row of mean 1e6 or -3e4: a variance taken as the difference of two large, nearly "
        "equal numbers loses every digit, and float32's 7 digits cannot hold such a row: float64's 16 can)"
    )
    if finite_differences and cross_check:
        dx, dgamma, dbeta = finite_difference_layer_norm(dout, x, gamma, e)
        assert all(
            matches(a, b, rtol, atol, strict=True)
            for a, b in zip(exact, (dx, dgamma, dbeta), strict=True)
        ), what
    else:
        dx, dgamma, dbeta = exact
    dx_diagnoses, dgamma_diagnoses, _ = layer_norm_backward_variants(dout, x, gamma, e)
    C = x.shape[-1]
    call = Call((dout, x, gamma), {} if eps is None else {"eps": eps})

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        got_dx, got_dgamma, got_dbeta = tuple_answer(outcome, ["dx", "dgamma", "dbeta"])
        for label, got in (("dgamma", got_dgamma), ("dbeta", got_dbeta)):
            if isinstance(got, np.ndarray) and got.shape != (C,):
                raise CheckFailed(
                    f"{label} has shape {got.shape}; expected ({C},): gamma and beta are shared by every "
                    "position (which axes do they not vary along?)"
                )
        with labelled("dx"):
            got_dx = as_array(got_dx, x.shape)
            expect_close(
                got_dx,
                dx,
                rtol,
                atol,
                diagnoses=[
                    (h, c) for h, c in dx_diagnoses if not matches(c, dx, rtol, atol, strict)
                ],
                note=note,
                strict=strict,
            )
        with labelled("dgamma"):
            expect_close(
                as_array(got_dgamma, (C,)),
                dgamma,
                rtol,
                atol,
                diagnoses=[
                    (h, c)
                    for h, c in dgamma_diagnoses
                    if not matches(c, dgamma, rtol, atol, strict)
                ],
                note=note,
                strict=strict,
            )
        with labelled("dbeta"):
            expect_close(
                as_array(got_dbeta, (C,)),
                dbeta,
                rtol,
                atol,
                diagnoses=[("dbeta came out as dgamma's value: the two are swapped", dgamma)]
                if not matches(dgamma, dbeta, rtol, atol, strict)
                else [],
                note=note,
                strict=strict,
            )
        expect_closed_form(
            ("dx", "dgamma", "dbeta"),
            (got_dx, got_dgamma, got_dbeta),
            exact,
            large_means=strict,
            note=note,
        )
        expect_unchanged(outcome, (dout, x, gamma))
        expect_fresh(outcome, ("dout", "x", "gamma"))

    return in_layout(Check(what, [call], judge), layout)


def layer_norm_backward_checks(rng: np.random.Generator) -> list[Check]:
    """Random 1-d, 2-d and 3-d inputs against central differences, a large eps, rows of very
    different scales, activations too large for finite differences, non-contiguous inputs, dout
    and gamma of wrong shapes."""
    checks = []
    for shape, eps in [
        ((5,), None),
        ((3, 4), None),
        ((2, 3, 6), 1e-5),
        ((4, 3), 0.3),
        ((2, 2, 5), None),
    ]:
        C = shape[-1]
        x = rng.normal(rng.normal(0, 1), rng.uniform(0.5, 2), shape)
        gamma = rng.normal(1, 0.5, C)
        dout = rng.normal(size=shape)
        checks.append(
            _judge_ln_backward(
                dout, x, gamma, eps, f"x of shape {shape}, eps {'default' if eps is None else eps}"
            )
        )
    x = rng.normal(rng.normal(0, 0.1), 0.01, (4, 6))  # eps a tenth of the variance
    checks.append(
        _judge_ln_backward(
            rng.normal(size=x.shape),
            x,
            rng.normal(1, 0.5, 6),
            None,
            "a spread of 0.01 with the default eps (1e-5, a tenth of the variance)",
            cross_check=False,  # differences lose digits at this spread: the closed form decides
        )
    )
    x = different_scales(rng, 5)
    checks.append(
        _judge_ln_backward(
            rng.normal(size=x.shape),
            x,
            rng.normal(1, 0.5, 5),
            1e-5,
            "rows of very different means and spreads (1e6 beside 0)",
            finite_differences=False,
        )
    )
    x = rng.normal(size=(8, 64, 128)) * rng.uniform(0.5, 2, (8, 64, 1)) + rng.normal(
        size=(8, 64, 1)
    )
    checks.append(
        _judge_ln_backward(
            rng.normal(size=x.shape),
            x,
            rng.normal(1, 0.5, 128),
            None,
            "activations of shape (8, 64, 128): far too many entries for finite differences",
            cross_check=False,  # the closed form, checked against differences above, decides
        )
    )
    x = rng.normal(size=(2, 3, 4))
    checks.append(
        _judge_ln_backward(
            rng.normal(size=x.shape),
            x,
            rng.normal(1, 0.5, 4),
            None,
            "non-contiguous inputs",
            layout="strided",
        )
    )
    return checks + layer_norm_backward_shape_checks(rng)


def layer_norm_backward_shape_checks(rng: np.random.Generator) -> list[Check]:
    """gamma and dout each of shapes that would broadcast, or of the right size but not shape."""
    x = rng.normal(size=(2, 3, 4))  # T = 3, C = 4
    checks = [
        _rejects(
            (x, x, bad),
            {},
            f"gamma of shape {bad.shape} for x of shape (2, 3, 4) raises ValueError",
            "gamma must have shape (C,)",
        )
        for bad in (np.ones(1), np.ones((1, 4)), np.ones((4, 1)), np.array(1.0), np.ones(3))
    ]
    for bad in (x[:1], x[:, :1], x[0, 0], x[None], x.reshape(2, 4, 3), x.reshape(6, 4)):
        checks.append(
            _rejects(
                (bad, x, np.ones(4)),
                {},
                f"dout of shape {bad.shape} for x of shape (2, 3, 4) raises ValueError",
                "dout must have the shape of x",
            )
        )
    return checks
