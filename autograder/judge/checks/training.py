"""Hidden checks for chapter 06: sgd_train, batchnorm_forward, batchnorm_backward.

sgd_train runs in a probe with a trusted loss_and_grads; its trajectory is replayed here exactly.
Batch normalisation is referenced by plain per-feature loops and, for the backward pass, by
central finite differences in float64; failures are diagnosed by matching the known slips.
"""

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.layouts import in_layout
from autograder.judge.expect import (
    as_array,
    as_number,
    expect_close,
    expect_fresh,
    expect_raises,
    labelled,
    matches,
    same,
    tuple_answer,
    value_of,
)
from autograder.sandbox.guest.calls import Call, Outcome
from autograder.sandbox.guest.probes import PROBLEMS

LARGE_MEAN_NOTE = (
    " (a feature's mean is 1e6 times its spread here: a variance taken as the difference of two "
    "large, nearly equal numbers loses every digit, and so does float32, whose 7 digits cannot "
    "even hold such a feature)"
)

# ---------------------------------------------------------------- sgd_train


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
                f"{outcome.error}: update only the parameters named in grads; params may hold "
                "entries without a gradient, like W3=None or an array that is not trained"
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
            raise CheckFailed("returned a dict; return the list of losses and update params itself")
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
            raise CheckFailed("only the first batch was used: take one step per batch")
        if len(losses) != len(batches):
            raise CheckFailed(f"returned {len(losses)} losses for {len(batches)} batches")
        if not isinstance(after, dict) or set(after) != set(params):
            raise CheckFailed("params must keep its entries (update their values, add none)")
        for name, value in params.items():
            if value is None and after[name] is not None:
                raise CheckFailed(f"{name} has no gradient and must stay None")
        for name in frozen:
            if not same(params[name], after[name]):
                raise CheckFailed(
                    f"{name} has no gradient (it is not trained) and must stay as it was: update "
                    "only the parameters named in grads"
                )
        if report.get("grads_modified"):
            raise CheckFailed(
                f"the gradient arrays loss_and_grads returned ({', '.join(report['grads_modified'])}) "
                "were changed in place: they may be the caller's (which operation writes into "
                "an array it was given?)"
            )
        if report.get("batches_modified"):
            raise CheckFailed("the batches' X or Y were changed: leave them as they are")
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
                            "the step is learning_rate**2 times the gradient: the rate is applied twice",
                            wrong["squared"]["params"][name],
                        ),
                        (
                            "every step used the first batch: step on each batch in turn",
                            wrong["first batch"]["params"][name],
                        ),
                        (
                            "every gradient was computed at the initial parameters: compute each "
                            "batch's gradient after the previous step",
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
        probe="autograder.sandbox.guest.probes:sgd_train_probe",
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
                f"params in the order {', '.join(order)}, gradients w then u (pair them by name)",
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
        probe="autograder.sandbox.guest.probes:sgd_train_probe",
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
            "batches from a generator (iterate once; it has no len())",
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
            "params holds W3=None without a gradient (update only what grads names)",
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


# ---------------------------------------------------------------- batchnorm_forward


def bn_reference(
    x, gamma, beta, mean, var, momentum, eps, training, *, slip: str = ""
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Batch normalisation by plain loops over features; `slip` reproduces a known mistake."""
    B, D = x.shape
    out, new_mean, new_var = np.empty_like(x), np.array(mean, copy=True), np.array(var, copy=True)
    for j in range(D):
        column = x[:, j]
        mu = sum(column) / B
        biased = sum((v - mu) ** 2 for v in column) / B
        unbiased = biased * B / (B - 1) if B > 1 else np.nan
        use_batch = training != (slip == "swap modes")
        centre, spread = (mu, biased) if use_batch else (mean[j], var[j])
        if slip == "unbiased normalise" and use_batch:
            spread = unbiased
        denominator = {"eps outside": np.sqrt(spread) + eps, "no eps": np.sqrt(spread)}.get(
            slip, np.sqrt(spread + eps)
        )
        scale, shift = (beta[j], gamma[j]) if slip == "swap gamma beta" else (gamma[j], beta[j])
        out[:, j] = scale * (column - centre) / denominator + shift
        if training or slip == "update in eval":
            keep = momentum if slip == "swap momentum" else 1 - momentum
            new_mean[j] = keep * mean[j] + (1 - keep) * mu
            batch_var = biased if slip == "biased running" else unbiased
            new_var[j] = keep * var[j] + (1 - keep) * batch_var
    return out, new_mean, new_var


FORWARD_SLIPS = {
    "unbiased normalise": "the normalised x is slightly off, more so for small batches: which "
    "variance normalises, the biased or the unbiased one?",
    "biased running": "the running variance is slightly low, more so for small batches: which "
    "variance does it average, the biased or the unbiased one?",
    "swap momentum": "the running statistics move the wrong distance toward the batch's: which "
    "of the two, the old value or the batch's, does momentum weigh?",
    "eps outside": "the output differs where the variance is tiny: where does eps enter the "
    "denominator?",
    "no eps": "eps was left out: the output is what eps = 0 gives",
    "swap gamma beta": "gamma and beta swapped roles: which one scales and which one shifts?",
    "swap modes": "training mode normalised with the running statistics: a batch in training is "
    "normalised by its own",
}
EVAL_WITH_BATCH = (
    "evaluation mode normalised with the batch's own statistics: the output for one example then "
    "depends on the others in its batch (which statistics does evaluation use?)"
)
ARGS = ("x", "gamma", "beta", "running_mean", "running_var")


def _judge_forward(
    x, gamma, beta, mean, var, momentum, eps, training, what: str, note: str = "", layout=None
) -> Check:
    args = (x, gamma, beta, mean, var, momentum, eps, training)
    defaults = (momentum, eps, training) == (0.1, 1e-5, True)  # then called with five arguments
    ref = bn_reference(*args)
    slips = {slip: bn_reference(*args, slip=slip) for slip in [*FORWARD_SLIPS, "update in eval"]}
    B, D = x.shape

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        parts = tuple_answer(outcome, ["out", "running_mean", "running_var"])
        got = [as_array(p, s, kinds="f") for p, s in zip(parts, [(B, D), (D,), (D,)], strict=True)]
        if B != D and D > 1:
            across = (x - x.mean(axis=1, keepdims=True)) / np.sqrt(
                x.var(axis=1, keepdims=True) + eps
            )
            if matches(got[0], gamma * across + beta, 1e-6, 1e-8):
                raise CheckFailed(
                    "the statistics are per feature: mean and variance over the batch (axis 0)"
                )
        for index, label in enumerate(["out", "running_mean", "running_var"]):
            hints = []
            for slip, hint in FORWARD_SLIPS.items():
                if slip == "swap modes" and not training:
                    hint = EVAL_WITH_BATCH
                hints.append((hint, slips[slip][index]))
            if not training:
                hints.append(
                    (
                        "evaluation mode must return the running statistics unchanged",
                        slips["update in eval"][index],
                    )
                )
            # a feature of mean 1e6 and spread 1e-2 needs float64 (float32 cannot hold it);
            # elsewhere float32's precision passes (autograder.judge.expect.FLOAT32_RTOL)
            strict = note == LARGE_MEAN_NOTE
            with labelled(label):
                expect_close(
                    got[index], ref[index], 1e-7, 1e-9, diagnoses=hints, note=note, strict=strict
                )
        for name, before, after in zip(ARGS, args, outcome.args_after or (), strict=False):
            if not same(before, after):
                raise CheckFailed(
                    f"{name} was modified in place: the caller's arrays must not change"
                )
        expect_fresh(outcome, ARGS)

    return in_layout(Check(what, [Call(args[:5] if defaults else args)], judge), layout)


def _judge_forward_raises(args: tuple, what: str, hint: str) -> Check:
    def judge(outcomes: list[Outcome]) -> None:
        expect_raises(outcomes[0], "ValueError", hint)

    return Check(what, [Call(args)], judge)


def _bn_inputs(rng: np.random.Generator, B: int, D: int) -> tuple:
    x = rng.normal(rng.uniform(-3, 3, D), rng.uniform(0.5, 4, D), size=(B, D))
    return (
        x,
        rng.uniform(0.5, 2.0, D),
        rng.normal(size=D),
        rng.normal(size=D),
        rng.uniform(0.5, 3.0, D),
    )


def batchnorm_forward_checks(rng: np.random.Generator) -> list[Check]:
    """Training and evaluation, random shapes and momenta, a constant feature, B = 2, bad shapes."""
    checks = []
    for B, D, training in [
        (8, 3, True),
        (5, 7, True),
        (2, 4, True),
        (16, 1, True),
        (6, 5, False),
        (1, 3, False),
    ]:
        x, gamma, beta, mean, var = _bn_inputs(rng, B, D)
        momentum = float(rng.choice([0.1, 0.3, 0.9]))
        eps = float(rng.choice([1e-5, 1e-3, 0.5]))
        mode = "training" if training else "evaluation"
        checks.append(
            _judge_forward(
                x,
                gamma,
                beta,
                mean,
                var,
                momentum,
                eps,
                training,
                f"{mode}, batch {B}, {D} features, momentum {momentum}, eps {eps}",
            )
        )
    checks.append(
        _judge_forward(
            *_bn_inputs(rng, 5, 3),
            0.1,
            1e-5,
            True,
            "x, gamma, beta and the running statistics only: momentum 0.1, eps 1e-5 and training "
            "by default",
            note=" (called with five arguments: the defaults are momentum=0.1, eps=1e-5, "
            "training=True)",
        )
    )
    x, gamma, beta, mean, var = _bn_inputs(rng, 6, 4)
    x[:, 2] = 1.5  # a feature with zero variance: only eps keeps the division finite
    checks.append(
        _judge_forward(
            x, gamma, beta, mean, var, 0.1, 1e-5, True, "one feature constant over the batch"
        )
    )
    x, gamma, beta, mean, var = _bn_inputs(rng, 4, 3)
    checks.append(
        _judge_forward(
            x, gamma, beta, mean, var, 0.2, 0.1, True, "large eps = 0.1 (inside the root)"
        )
    )
    x, gamma, beta, mean, var = _bn_inputs(rng, 6, 4)
    x = different_scales(rng, 6)
    mean, var = np.array([0.0, 1e6, -3e4, 0.0]), np.array([1.0, 1.0, 1e-4, 1e6])
    for training in (True, False):
        checks.append(
            _judge_forward(
                x,
                gamma,
                beta,
                mean,
                var,
                0.1,
                1e-5,
                training,
                f"{'training' if training else 'evaluation'}: features of very different means "
                "and spreads (1e6 beside 0, spreads 1e-2 to 1e3)",
                note=LARGE_MEAN_NOTE,
            )
        )
    for training in (True, False):
        checks.append(
            _judge_forward(
                *_bn_inputs(rng, 5, 3),
                0.1,
                1e-5,
                training,
                f"{'training' if training else 'evaluation'}: non-contiguous inputs",
                layout="strided",
            )
        )
    return checks + batchnorm_forward_shape_checks(rng)


def different_scales(rng: np.random.Generator, B: int) -> np.ndarray:
    """(B, 4): features of mean 0 and spread 1, mean 1e6, mean -3e4 and spread 1e-2, spread 1e3."""
    x = rng.normal(size=(B, 4))
    x[:, 1] += 1e6
    x[:, 2] = -3e4 + 1e-2 * x[:, 2]
    x[:, 3] *= 1e3
    return x


def batchnorm_forward_shape_checks(rng: np.random.Generator) -> list[Check]:
    """A batch of one in training; x of the wrong dimensions; every (D,) argument of a shape that
    would broadcast: (1,) in training, (1, D) in evaluation, and too short."""
    x, gamma, beta, mean, var = _bn_inputs(rng, 4, 3)
    checks = [
        _judge_forward_raises(
            (*_bn_inputs(rng, 1, 3), 0.1, 1e-5, True),
            "training with a batch of one",
            "training needs at least two examples: ValueError",
        ),
        _judge_forward_raises(
            (x[:, :, None], gamma, beta, mean, var, 0.1, 1e-5, True),
            "x of three dimensions",
            "x must be (B, D): ValueError",
        ),
        _judge_forward_raises(
            (x[0], gamma, beta, mean, var, 0.1, 1e-5, False),
            "x of one dimension",
            "x must be (B, D): ValueError",
        ),
    ]
    hint = "gamma, beta and the running statistics must be (D,): ValueError"
    for index, name in enumerate(ARGS[1:], start=1):
        for bad, training in ((np.ones(1), True), (np.ones((1, 3)), False), (np.ones(2), False)):
            args = [x, gamma, beta, mean, var, 0.1, 1e-5, training]
            args[index] = bad
            mode = "training" if training else "evaluation"
            checks.append(
                _judge_forward_raises(tuple(args), f"{name} of shape {bad.shape} in {mode}", hint)
            )
    return checks


# ---------------------------------------------------------------- batchnorm_backward


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


def _judge_backward(
    dout, x, gamma, eps, what: str, finite_differences: bool = True, layout=None
) -> Check:
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
        strict = not finite_differences  # a feature of mean 1e6: float32 cannot hold it
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
                note=default_note or ("" if finite_differences else LARGE_MEAN_NOTE),
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
                    else LARGE_MEAN_NOTE
                ),
                strict=strict,
            )
        for label, got, want in zip(
            ("dx", "dgamma", "dbeta"), (got_dx, got_dgamma, got_dbeta), exact, strict=True
        ):
            # float64 agrees with the closed form to ~1e-13, or to ~1e-9 where a feature's mean
            # is 1e6 times its spread (the inputs themselves hold no more)
            tight = (1e-8, 1e-10) if finite_differences else (1e-7, 1e-8)
            tolerance = tight[0], tight[1] * float(np.max(np.abs(want), initial=1.0))
            with labelled(label):
                expect_close(
                    got,
                    want,
                    *tolerance,
                    note="" if finite_differences else LARGE_MEAN_NOTE,
                    strict=strict,
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
    """Random shapes against central differences, B = 2, one feature, a constant feature, large eps."""
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
            finite_differences=False,
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
