"""Hidden checks for chapter 06's `batchnorm_backward`: random shapes against central differences, B = 2, one feature, a constant feature, large eps, and a batch too large for any numerical gradient."""

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.layouts import in_layout
from autograder.judge.checks.training_shared import LARGE_MEAN_NOTE, different_scales
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    as_array,
    expect_close,
    expect_closed_form,
    expect_fresh,
    labelled,
    matches,
    same,
    tuple_answer,
)
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="batchnorm_backward",
    chapter="06_training",
    points=4,
    kind="derive",
    given_in_text=("dout*gamma",),
)


def _bn_train(
    x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float, ddof: int = 0
) -> np.ndarray:
    xhat = (x - x.mean(axis=0)) / np.sqrt(x.var(axis=0, ddof=ddof) + eps)
    return gamma * xhat + beta


def finite_difference_grads(dout, x, gamma, eps, step: float = 1e-6) -> tuple:
    """dx, dgamma, dbeta of sum(dout * batchnorm(x)) by central differences in float64."""
    beta = np.zeros_like(gamma)

    def loss() -> float:
        return float(np.sum(dout * _bn_train(x, gamma, beta, eps)))

    grads = []
    for array in (x, gamma, beta):
        grad = np.zeros_like(array)
        for index in np.ndindex(array.shape):
            saved = array[index]
            array[index] = saved + step
            plus = loss()
            array[index] = saved - step
            minus = loss()
            array[index] = saved
            grad[index] = (plus - minus) / (2 * step)
        grads.append(grad)
    return tuple(grads)


def backward_slips(dout, x, gamma, eps) -> dict[str, np.ndarray]:
    """dx as the known slips compute it."""
    B = x.shape[0]
    mu, var = x.mean(axis=0), x.var(axis=0)  # biased, as the forward pass
    std = np.sqrt(var + eps)
    xhat = (x - mu) / std
    dxhat = dout * gamma
    full = (dxhat - dxhat.mean(0) - xhat * (dxhat * xhat).mean(0)) / std
    return {
        "the paths through the batch mean and variance are missing: each x moves the mean and the "
        "variance, and through them every output of its feature": dxhat / std,
        "the path through the mean is missing: each x also moves its feature's batch mean": (
            dxhat - xhat * (dxhat * xhat).mean(0)
        )
        / std,
        "the path through the variance is missing: each x also moves its feature's batch variance": (
            dxhat - dxhat.mean(0)
        )
        / std,
        "exactly B times too large": full * B,
        "exactly B times too small: the 1/B of the mean is counted twice": full / B,
        "gamma is missing: the gradient reaching xhat goes through the scale": full / gamma,
    }


def closed_form_backward(dout, x, gamma, eps) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """dx, dgamma, dbeta in closed form with two-pass statistics in float64 (checked against
    central differences wherever those are accurate)."""
    mu = x.mean(axis=0)
    std = np.sqrt(((x - mu) ** 2).mean(axis=0) + eps)
    xhat = (x - mu) / std
    g = dout * gamma
    dx = (g - g.mean(0) - xhat * (g * xhat).mean(0)) / std
    return dx, (dout * xhat).sum(0), dout.sum(0)


# A batch where only a derived gradient can answer: central differences need 2 * B * D passes of
# the forward pass over B * D entries, about 3e10 operations here (minutes, not seconds).
LARGE_BATCH = (1024, 128)
LARGE_BATCH_NOTE = (
    f" (a batch of {LARGE_BATCH[0]} with {LARGE_BATCH[1]} features: a numerical gradient needs two "
    "passes of the forward pass per entry of x, far beyond the check's time; here only the "
    "derivation answers)"
)


def _judge_backward(
    dout, x, gamma, eps, what: str, reference: str = "finite differences", layout=None
) -> Check:
    """Judge dx, dgamma, dbeta against `reference`: "finite differences" (and the closed form),
    or the closed form alone where those fail: "large means" (float64 only), "large batch"."""
    finite_differences = reference == "finite differences"
    closed_note = {"large means": LARGE_MEAN_NOTE, "large batch": LARGE_BATCH_NOTE}.get(
        reference, ""
    )
    args = (dout, x, gamma) if eps is None else (dout, x, gamma, eps)
    default_note = " (called without eps: its default is 1e-5)" if eps is None else ""
    eps = 1e-5 if eps is None else eps
    exact = closed_form_backward(dout, x, gamma, eps)
    if finite_differences:
        dx, dgamma, dbeta = finite_difference_grads(dout, x.copy(), gamma.copy(), eps)
        assert all(
            matches(a, b, 1e-5, 1e-8, strict=True)
            for a, b in zip(exact, (dx, dgamma, dbeta), strict=True)
        ), what
        # the N - 1 slip: finite differences of the forward pass with the unbiased variance
        unbiased = _fd_unbiased(dout, x, gamma, eps)
    else:  # a feature far from 0: central differences lose digits; the closed form does not
        dx, dgamma, dbeta = exact
        unbiased = None
    slips = backward_slips(dout, x, gamma, eps)
    slips["the backward uses the unbiased variance; the forward, the biased one"] = unbiased
    B, D = x.shape

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        got_dx, got_dgamma, got_dbeta = tuple_answer(outcome, ["dx", "dgamma", "dbeta"])
        for name, got in [("dgamma", got_dgamma), ("dbeta", got_dbeta)]:
            if isinstance(got, np.ndarray) and got.shape == (B, D) and B > 1:
                raise CheckFailed(
                    f"{name} has shape {got.shape}, not (D,): one gamma and beta serve every row"
                )
            if isinstance(got, np.ndarray) and got.shape == (B,) and B != D:
                raise CheckFailed(
                    f"{name} has shape {got.shape}: reduced over the features, not the batch"
                )
        got_dx = as_array(got_dx, (B, D))
        got_dgamma, got_dbeta = as_array(got_dgamma, (D,)), as_array(got_dbeta, (D,))
        strict = reference == "large means"  # a feature of mean 1e6: float32 cannot hold it
        with labelled("dbeta"):
            expect_close(got_dbeta, dbeta, rtol=1e-6, atol=1e-8, strict=strict)
        with labelled("dgamma"):
            expect_close(
                got_dgamma,
                dgamma,
                rtol=1e-6,
                atol=1e-8,
                diagnoses=[
                    ("dgamma misses xhat: gamma multiplies the normalised x", dout.sum(0)),
                    (
                        "dgamma uses x where gamma multiplies the normalised x",
                        (dout * x).sum(0),
                    ),
                ]
                + (
                    [
                        (
                            "the backward uses the unbiased variance; the forward, the biased one",
                            _dgamma_unbiased(dout, x, eps),
                        )
                    ]
                    if B > 1
                    else []
                ),
                note=default_note or closed_note,
                strict=strict,
            )
        with labelled("dx"):
            expect_close(
                got_dx,
                dx,
                rtol=1e-5,
                atol=1e-8,
                diagnoses=list(slips.items()),
                note=default_note
                or (
                    " (against central differences in float64)"
                    if finite_differences
                    else closed_note
                ),
                strict=strict,
            )
        expect_closed_form(
            ("dx", "dgamma", "dbeta"),
            (got_dx, got_dgamma, got_dbeta),
            exact,
            large_means=strict,
            note=closed_note,
        )
        for name, before, after in zip(
            ("dout", "x", "gamma"), (dout, x, gamma), outcome.args_after or (), strict=False
        ):
            if not same(before, after):
                raise CheckFailed(
                    f"{name} was modified in place: the caller's arrays must not change"
                )
        expect_fresh(outcome, ("dout", "x", "gamma"))

    return in_layout(Check(what, [Call(args)], judge), layout)


def _fd_unbiased(dout, x, gamma, eps) -> np.ndarray:
    x = x.copy()
    grad, step = np.zeros_like(x), 1e-6
    beta = np.zeros_like(gamma)
    for index in np.ndindex(x.shape):
        saved = x[index]
        x[index] = saved + step
        plus = float(np.sum(dout * _bn_train(x, gamma, beta, eps, ddof=1)))
        x[index] = saved - step
        minus = float(np.sum(dout * _bn_train(x, gamma, beta, eps, ddof=1)))
        x[index] = saved
        grad[index] = (plus - minus) / (2 * step)
    return grad


def _dgamma_unbiased(dout, x, eps) -> np.ndarray:
    return (dout * (x - x.mean(0)) / np.sqrt(x.var(0, ddof=1) + eps)).sum(0)


def batchnorm_backward_checks(rng: np.random.Generator) -> list[Check]:
    """Random shapes against central differences, B = 2, one feature, a constant feature, large eps,
    features of very different scales and a batch too large for a numerical gradient."""
    checks = []
    for B, D, eps in [(6, 3, 1e-5), (4, 5, 1e-3), (2, 3, 1e-5), (10, 1, 1e-5), (12, 6, 0.5)]:
        x = rng.normal(rng.uniform(-2, 2, D), rng.uniform(0.5, 3, D), size=(B, D))
        gamma = rng.uniform(0.5, 2.5, D) * rng.choice([-1, 1], D)
        dout = rng.normal(size=(B, D))
        checks.append(_judge_backward(dout, x, gamma, eps, f"batch {B}, {D} features, eps {eps}"))
    x = rng.normal(size=(4, 3))
    checks.append(
        _judge_backward(
            rng.normal(size=(4, 3)), x, rng.uniform(0.5, 2, 3), None, "eps left at its default 1e-5"
        )
    )
    x = rng.normal(size=(5, 3))
    x[:, 1] = -0.7
    checks.append(
        _judge_backward(
            rng.normal(size=(5, 3)), x, rng.uniform(0.5, 2, 3), 1e-3, "one feature constant"
        )
    )
    x = different_scales(rng, 6)
    checks.append(
        _judge_backward(
            rng.normal(size=x.shape),
            x,
            rng.uniform(0.5, 2, 4),
            1e-5,
            "features of very different means and spreads (1e6 beside 0, spreads 1e-2 to 1e3)",
            reference="large means",
        )
    )
    B, D = LARGE_BATCH
    x = rng.normal(rng.uniform(-2, 2, D), rng.uniform(0.5, 3, D), size=(B, D))
    checks.append(
        _judge_backward(
            rng.normal(size=(B, D)),
            x,
            rng.uniform(0.5, 2.5, D),
            1e-5,
            f"a batch of {B} with {D} features (too large for a numerical gradient)",
            reference="large batch",
        )
    )
    checks.append(
        _judge_backward(
            rng.normal(size=(4, 3)),
            rng.normal(size=(4, 3)),
            rng.uniform(0.5, 2, 3),
            1e-5,
            "non-contiguous inputs",
            layout="strided",
        )
    )
    return checks
