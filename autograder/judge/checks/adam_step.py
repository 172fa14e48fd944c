"""Hidden checks for chapter 06's challenge: adam_step (one step of Adam by hand).

The reference is `torch.optim.Adam` itself, in float64, started from the given moments and step
count; the diagnoses are the classic slips, computed from their definitions.
"""

import numpy as np
import torch

from autograder.judge.check import Check
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    as_array,
    expect_close,
    expect_raises,
    expect_unchanged,
    labelled,
    tuple_answer,
)
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="adam_step",
    chapter="06_training",
    points=2,
    extra=True,
)


def torch_adam(param, grad, m, v, t, lr, betas, eps, weight_decay) -> tuple:
    """(param, m, v) after step t of torch.optim.Adam, whose state before it was (m, v, t - 1)."""
    p = torch.nn.Parameter(torch.tensor(param, dtype=torch.float64))
    optimizer = torch.optim.Adam(
        [p], lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=False
    )
    optimizer.state[p] = {
        "step": torch.tensor(float(t - 1)),
        "exp_avg": torch.tensor(m, dtype=torch.float64),
        "exp_avg_sq": torch.tensor(v, dtype=torch.float64),
    }
    p.grad = torch.tensor(grad, dtype=torch.float64)
    optimizer.step()
    state = optimizer.state[p]
    return (
        p.detach().numpy().copy(),
        state["exp_avg"].numpy().copy(),
        state["exp_avg_sq"].numpy().copy(),
    )


def _variant(param, grad, m, v, t, lr, betas, eps, wd, slip: str) -> tuple:
    """One step with a known slip."""
    b1, b2 = betas
    g = grad + wd * param if slip not in ("decoupled", "no_decay") else grad
    m_new = b1 * m + (1 - b1) * g
    v_new = b2 * v + (1 - b2) * (np.abs(g) if slip == "abs" else g * g)
    step = {"t_minus_1": t - 1, "t_plus_1": t + 1}.get(slip, t)
    c1, c2 = 1 - b1**step, 1 - b2**step
    if slip == "no_correction":
        c1 = c2 = 1.0
    with np.errstate(all="ignore"):
        m_hat, v_hat = m_new / c1, v_new / c2
        denom = np.sqrt(v_hat + eps) if slip == "eps_inside" else np.sqrt(v_hat) + eps
        new = param - lr * m_hat / denom
    if slip == "decoupled":
        new = new - lr * wd * param
    return new, m_new, v_new


HINTS = {
    "no_correction": "the first steps are too small, as if the moments were still near their zero "
    "start: the moments are biased towards zero early on (bias correction)",
    "t_minus_1": "the bias correction is off by one step: what is t on the first step?",
    "t_plus_1": "the bias correction is off by one step: what is t on the first step?",
    "eps_inside": "the step differs where v is tiny: where does eps enter the denominator?",
    "decoupled": "with weight decay the step differs: torch.optim.Adam's weight_decay is L2 "
    "(it acts through the gradient), not AdamW's decoupled decay",
    "no_decay": "weight_decay was ignored: the step is the same with and without it",
    "abs": "the second moment is wrong: what does v average, the gradient's size or its square?",
}


def _check(param, grad, m, v, t, kwargs: dict, what: str) -> Check:
    lr = kwargs.get("lr", 1e-3)
    betas = kwargs.get("betas", (0.9, 0.999))
    eps = kwargs.get("eps", 1e-8)
    wd = kwargs.get("weight_decay", 0.0)
    expected = torch_adam(param, grad, m, v, t, lr, betas, eps, wd)
    slips = {s: _variant(param, grad, m, v, t, lr, betas, eps, wd, s) for s in HINTS}

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        answer = tuple_answer(outcome, ["param", "m", "v"])
        for index, label in ((1, "m"), (2, "v"), (0, "the new parameter")):
            got = as_array(answer[index], param.shape)
            with labelled(label):
                expect_close(
                    got,
                    expected[index],
                    rtol=1e-9,
                    atol=1e-13,
                    diagnoses=[(HINTS[s], slips[s][index]) for s in HINTS],
                )
        expect_unchanged(outcome, (param, grad, m, v, t))

    return Check(what, [Call((param, grad, m, v, t), kwargs)], judge)


def _rejects(args: tuple, what: str) -> Check:
    def judge(outcomes: list[Outcome]) -> None:
        expect_raises(outcomes[0], "ValueError", "t is the step number, at least 1")

    return Check(what, [Call(args)], judge)


def adam_step_checks(rng: np.random.Generator) -> list[Check]:
    """The first step, later steps with random moments, weight decay, other betas and eps."""

    def state(shape, scale=1.0):
        param, grad = rng.normal(0, 1, shape), rng.normal(0, scale, shape)
        m = rng.normal(0, 0.1 * scale, shape)
        v = rng.uniform(0, 0.05 * scale**2, shape)
        return param, grad, m, v

    zeros = np.zeros((3, 4))
    param, grad = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    checks = [
        _check(param, grad, zeros, zeros, 1, {}, "the first step from zero moments (defaults)"),
        _check(*state((5,)), 2, {"lr": 0.01}, "step 2, lr 0.01"),
        _check(*state((4, 3)), int(rng.integers(3, 50)), {"lr": 0.003}, "a later step"),
        _check(
            *state((6,)),
            7,
            {"lr": 0.01, "weight_decay": 0.1},
            "weight decay 0.1 (L2, as torch.optim.Adam)",
        ),
        _check(
            *state((2, 5), scale=1e-4),
            3,
            {"lr": 0.02, "betas": (0.8, 0.99), "eps": 1e-6},
            "tiny gradients, betas (0.8, 0.99), eps 1e-6",
        ),
        _check(
            *state((3,)), 1000, {"lr": 1e-3, "betas": (0.5, 0.9)}, "step 1000, betas (0.5, 0.9)"
        ),
        # an update as large as the parameter: a slip in the bias correction or eps moves it by
        # far more than float32's rounding of the parameter (1e-5 of it) that the checks allow
        _check(
            *state((4,)), 2, {"lr": 0.5}, "step 2, lr 0.5 (an update as large as the parameter)"
        ),
        _rejects((param, grad, zeros, zeros, 0), "t = 0 raises ValueError"),
    ]
    return checks
