"""Hidden checks for chapter 06's `sgd_train`: one exact step, several steps, a generator of batches, entries without gradient, 0-d parameters."""

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    as_array,
    as_number,
    expect_close,
    labelled,
    same,
    value_of,
)
from autograder.sandbox.guest import probes
from autograder.sandbox.guest.probes import PROBLEMS
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="sgd_train",
    chapter="06_training",
    points=3,
    kind="debug",
)


def _replay(params: dict, problem: str, batches: list, rate: float, variant: str = "") -> dict:
    """What an SGD loop computes (or a known wrong one, by `variant`): losses and parameters."""
    P = {k: None if v is None else np.array(v, dtype=np.float64) for k, v in params.items()}
    loss_and_grads = PROBLEMS[problem]
    losses = []
    start = dict(P)  # the "stale" slip computes every gradient here, before any update
    for X, Y in batches[:1] * len(batches) if variant == "first batch" else batches:
        loss, grads = loss_and_grads(start if variant == "stale" else P, X, Y)
        step = {"plus": -rate, "squared": rate**2}.get(variant, rate)
        if variant == "position":  # the i-th entry of params (with a value) takes the i-th gradient
            names = [name for name, value in P.items() if value is not None]
            grads = dict(zip(names, grads.values(), strict=False))
        for name, grad in grads.items():
            P[name] = P[name] - step * grad
        losses.append(loss_and_grads(P, X, Y)[0] if variant == "loss after" else loss)
    return {"losses": losses, "params": P}


def _replay_or_none(params: dict, problem: str, batches: list, rate: float, variant: str) -> dict:
    """The replay of a wrong loop, or empty losses and parameters where that loop would crash
    (a gradient paired by position with a parameter of another shape)."""
    try:
        return _replay(params, problem, batches, rate, variant)
    except ValueError:
        return {"losses": None, "params": dict.fromkeys(params)}


def _judge_sgd(params: dict, problem: str, batches: list, rate: float, what: str, **kw) -> Check:
    as_generator, note = kw.get("as_generator", False), kw.get("note", "")
    ref = _replay(params, problem, batches, rate)
    variants = ("plus", "squared", "loss after", "first batch", "stale", "position")
    wrong = {v: _replay_or_none(params, problem, batches, rate, v) for v in variants}
    if batches:
        X, Y = batches[0]
        names = list(PROBLEMS[problem]({**params}, X, Y)[1])  # the parameters with a gradient
    else:
        names = [name for name, value in params.items() if value is not None]
    frozen = [n for n, v in params.items() if v is not None and n not in names]

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        if outcome.error in ("KeyError", "TypeError") and len(names) < len(params):
            raise CheckFailed(
                f"{outcome.error}: params may hold entries without a gradient, like W3=None or an "
                "array that is not trained (which entries does grads name?)"
            )
        if outcome.error == "TypeError" and as_generator:
            raise CheckFailed(
                f"TypeError ({outcome.message}): batches may be a generator, with no len() and no "
                "indexing"
            )
        report = value_of(outcome)
        if not isinstance(report, dict):
            raise CheckFailed("the answer could not be read")
        losses, after, seen = report["losses"], report["params"], report["seen"]
        if isinstance(losses, dict):
            raise CheckFailed(
                "returned a dict where the contract gives the list of losses (and changes params "
                "itself)"
            )
        if isinstance(losses, np.ndarray) and losses.ndim == 1:
            losses = list(losses)
        if not isinstance(losses, list | tuple):
            raise CheckFailed(
                f"returned {type(losses).__name__}; expected a list with one loss per batch"
            )
        if len(seen) > len(batches):
            raise CheckFailed(
                f"loss_and_grads was called {len(seen)} times for {len(batches)} batches: one "
                "call gives a batch's loss and gradients together"
            )
        if len(batches) > 1 and len(seen) == 1:
            raise CheckFailed(
                "only the first batch was used: how many steps does the contract take?"
            )
        if len(losses) != len(batches):
            raise CheckFailed(f"returned {len(losses)} losses for {len(batches)} batches")
        if not isinstance(after, dict) or set(after) != set(params):
            raise CheckFailed(
                "params gained or lost entries: the contract changes the values it holds"
            )
        for name, value in params.items():
            if value is None and after[name] is not None:
                raise CheckFailed(f"{name} has no gradient and must stay None")
        for name in frozen:
            if not same(params[name], after[name]):
                raise CheckFailed(
                    f"{name} has no gradient (it is not trained) and changed anyway: which entries "
                    "does grads name?"
                )
        if report.get("grads_modified"):
            raise CheckFailed(
                f"the gradient arrays loss_and_grads returned ({', '.join(report['grads_modified'])}) "
                "were changed in place: they may be the caller's (which operation writes into "
                "an array it was given?)"
            )
        if report.get("batches_modified"):
            raise CheckFailed("the batches' X or Y were changed by the loop")
        for name in names:
            got = after[name]
            if np.ndim(params[name]) == 0 and isinstance(got, float):
                got = np.array(got)  # a 0-d parameter may come back as a NumPy scalar
            got = as_array(got, np.shape(params[name]), kinds="f")
            with labelled(f"params[{name!r}] after training"):
                if np.array_equal(got, params[name]) and len(batches) > 0:
                    raise CheckFailed(
                        "unchanged: the parameters in params never moved (updating a copy or a "
                        "local name changes nothing the caller sees)"
                    )
                expect_close(
                    got,
                    ref["params"][name],
                    rtol=1e-10,
                    atol=1e-12,
                    diagnoses=[
                        (
                            "the step goes uphill: the gradient points towards a larger loss",
                            wrong["plus"]["params"][name],
                        ),
                        (
                            "the step is the gradient times the rate squared: the rate is applied twice",
                            wrong["squared"]["params"][name],
                        ),
                        (
                            "every step used the first batch: which batch does step i see?",
                            wrong["first batch"]["params"][name],
                        ),
                        (
                            "every gradient was computed at the initial parameters: at which "
                            "parameters is each batch's gradient taken?",
                            wrong["stale"]["params"][name],
                        ),
                        (
                            "a parameter was paired with another one's gradient: what ties a "
                            "gradient to its parameter (dicts may list their entries in another "
                            "order)?",
                            wrong["position"]["params"][name],
                        ),
                    ],
                    note=note,
                )
        got_losses = [as_number(loss) for loss in losses]
        with labelled("losses"):
            expect_close(
                np.array(got_losses),
                np.array(ref["losses"]),
                rtol=1e-10,
                atol=1e-12,
                diagnoses=[
                    (
                        "each loss must be the one loss_and_grads returned before that batch's update",
                        np.array(wrong["loss after"]["losses"]),
                    )
                ],
                note=note,
            )

    call = Call(
        (params, problem, batches, rate, as_generator),
        probe=probes.sgd_train_probe,
    )
    return Check(what, [call], judge)


def _classification(rng: np.random.Generator, D: int, V: int, B: int, steps: int) -> tuple:
    params = {"W": rng.normal(size=(D, V)), "b": rng.normal(size=V)}
    batches = [(rng.normal(size=(B, D)), rng.integers(0, V, B)) for _ in range(steps)]
    return params, batches


def _training_conditions(rng: np.random.Generator) -> list[Check]:
    """Large gradients, gradients listed in another order than params, an array without a gradient."""
    D = int(rng.integers(3, 6))
    params = {"w": rng.normal(size=D), "c": np.array(rng.normal())}
    batches = [(rng.normal(0, 1e3, (8, D)), rng.normal(0, 1e4, 8)) for _ in range(5)]
    checks = [
        _judge_sgd(
            params,
            "least_squares",
            batches,
            1e-7,
            "gradients of order 1e7 (rate 1e-7): every step exactly rate * gradient",
            note=" (the gradients here are of order 1e7: the contract's step has no clipping or "
            "rescaling)",
        )
    ]
    for order in (("u", "W3", "w"), ("w", "u")):
        params = {name: None if name == "W3" else rng.normal(size=D) for name in order}
        batches = [(rng.normal(size=(6, D)), rng.normal(size=6)) for _ in range(4)]
        checks.append(
            _judge_sgd(
                params,
                "paired_vectors",
                batches,
                0.3,
                f"params in the order {', '.join(order)}, gradients w then u (the dicts list them in other orders)",
            )
        )
    params, batches = _classification(rng, 3, 4, 6, 3)
    params = {"E": rng.normal(size=(3, 4)), **params}  # an array with no gradient: not trained
    checks.append(
        _judge_sgd(
            params,
            "softmax_regression",
            batches,
            0.4,
            "params holds an array E without a gradient (frozen: it must stay as it was)",
        )
    )
    return checks


def fixed_problem() -> tuple[dict, list, float]:
    """Three classes of 2-D points at fixed places, 200 full-batch steps: the loss must fall below 0.1."""
    angles = np.arange(30) * 0.7
    centres = np.array([[3.0, 0.0], [-1.5, 2.6], [-1.5, -2.6]])
    X = centres[np.arange(30) % 3] + 0.8 * np.stack([np.cos(angles), np.sin(2 * angles)], axis=1)
    Y = np.arange(30) % 3
    return {"W": np.zeros((2, 3)), "b": np.zeros(3)}, [(X, Y)] * 200, 0.5


OUTCOME_THRESHOLD = 0.1


def _judge_outcome() -> Check:
    params, batches, rate = fixed_problem()
    X, Y = batches[0]

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        report = value_of(outcome)
        if not isinstance(report, dict) or not isinstance(report.get("params"), dict):
            raise CheckFailed("the answer could not be read")
        after = {n: as_array(report["params"][n], params[n].shape) for n in params}
        final = PROBLEMS["softmax_regression"](after, X, Y)[0]
        if not final < OUTCOME_THRESHOLD:
            raise CheckFailed(
                f"after 200 steps of rate {rate} the loss is {final:.4g}; a correct loop brings it "
                f"below {OUTCOME_THRESHOLD} (from ln 3 = 1.0986)"
            )

    call = Call(
        (params, "softmax_regression", batches, rate, False),
        probe=probes.sgd_train_probe,
    )
    return Check("three separable classes: the loss falls below 0.1 in 200 steps", [call], judge)


def sgd_train_checks(rng: np.random.Generator) -> list[Check]:
    """One exact step, several steps, a generator of batches, entries without gradient, 0-d parameters."""
    checks = []
    params, batches = _classification(rng, 3, 4, 5, 1)
    checks.append(_judge_sgd(params, "softmax_regression", batches, 0.3, "one step, exactly"))
    for D, V, B, steps in [(4, 3, 8, 6), (2, 5, 1, 4), (6, 7, 16, 12)]:
        params, batches = _classification(rng, D, V, B, steps)
        rate = float(rng.choice([0.05, 0.5, 2.0]))
        checks.append(
            _judge_sgd(
                params,
                "softmax_regression",
                batches,
                rate,
                f"{steps} steps, D={D}, V={V}, batch {B}, rate {rate}",
            )
        )
    params, batches = _classification(rng, 3, 3, 4, 5)
    checks.append(
        _judge_sgd(
            params,
            "softmax_regression",
            batches,
            0.2,
            "batches from a generator (it can be read once, and has no len())",
            as_generator=True,
        )
    )
    params, batches = _classification(rng, 3, 4, 6, 3)
    params["W3"] = None
    checks.append(
        _judge_sgd(
            params,
            "softmax_regression",
            batches,
            0.4,
            "params holds W3=None without a gradient (only what grads names is trained)",
        )
    )
    D = int(rng.integers(2, 5))
    params = {"w": rng.normal(size=D), "c": np.array(rng.normal())}
    batches = [(rng.normal(size=(7, D)), rng.normal(size=7)) for _ in range(4)]
    checks.append(
        _judge_sgd(params, "least_squares", batches, 0.1, "least squares with a 0-d parameter c")
    )
    params, _ = _classification(rng, 2, 3, 1, 0)
    checks.append(
        _judge_sgd(params, "softmax_regression", [], 0.1, "no batches: no losses, nothing changes")
    )
    checks += _training_conditions(rng)
    checks.append(_judge_outcome())
    return checks
