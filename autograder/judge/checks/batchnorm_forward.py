"""Hidden checks for chapter 06's `batchnorm_forward`: training and evaluation, random shapes and momenta, a constant feature, B = 2, bad shapes."""

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.layouts import in_layout
from autograder.judge.checks.training_shared import LARGE_MEAN_NOTE, different_scales
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    as_array,
    expect_close,
    expect_fresh,
    expect_raises,
    labelled,
    matches,
    same,
    tuple_answer,
)
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="batchnorm_forward",
    chapter="06_training",
    points=3,
    kind="debug",
)


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
        use_batch = training != (slip == "swap_modes")
        centre, spread = (mu, biased) if use_batch else (mean[j], var[j])
        if slip == "unbiased normalise" and use_batch:
            spread = unbiased
        denominator = {"eps outside": np.sqrt(spread) + eps, "no eps": np.sqrt(spread)}.get(
            slip, np.sqrt(spread + eps)
        )
        scale, shift = (beta[j], gamma[j]) if slip == "swap_gamma_beta" else (gamma[j], beta[j])
        out[:, j] = scale * (column - centre) / denominator + shift
        if training or slip == "update_in_eval":
            keep = momentum if slip == "swap_momentum" else 1 - momentum
            new_mean[j] = keep * mean[j] + (1 - keep) * mu
            batch_var = biased if slip == "biased running" else unbiased
            new_var[j] = keep * var[j] + (1 - keep) * batch_var
    return out, new_mean, new_var


FORWARD_SLIPS = {
    "unbiased normalise": "the normalised x is slightly off, more so for small batches: which "
    "variance normalises, the biased or the unbiased one?",
    "biased running": "the running variance is slightly low, more so for small batches: averaged "
    "over many batches of one distribution, what does each batch's contribution tend to?",
    "swap_momentum": "the running statistics move the wrong distance toward the batch's: which "
    "of the two, the old value or the batch's, does momentum weigh?",
    "eps outside": "the output differs where the variance is tiny: where does eps enter the "
    "denominator?",
    "no eps": "eps was left out: the output is what eps = 0 gives",
    "swap_gamma_beta": "gamma and beta swapped roles: which one scales and which one shifts?",
    "swap_modes": "training mode normalised with the running statistics: a batch in training is "
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
    slips = {slip: bn_reference(*args, slip=slip) for slip in [*FORWARD_SLIPS, "update_in_eval"]}
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
                    "each example (row) came out normalised, not each feature (column): which "
                    "values do a feature's mean and variance run over?"
                )
        for index, label in enumerate(["out", "running_mean", "running_var"]):
            hints = []
            for slip, hint in FORWARD_SLIPS.items():
                if slip == "swap_modes" and not training:
                    hint = EVAL_WITH_BATCH
                hints.append((hint, slips[slip][index]))
            if not training:
                hints.append(
                    (
                        "evaluation mode must return the running statistics unchanged",
                        slips["update_in_eval"][index],
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
