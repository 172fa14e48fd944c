"""Hidden checks for chapter 06's design exercise: learning_rates (a schedule for 300 SGD steps).

The student's function only returns numbers; the training that judges them runs here, on the
trusted side, with the chapter's model and data and seeds the student never sees. The target sits
between the chapter's own rates and a schedule designed for the budget. Measured as means over
seeds: constant rates from 0.1 to 1 end at 2.45-2.57 nats, the range test's rate with the chapter's
step decay at about 2.40, and a high peak decayed to zero (linear with a warm-up from 1.5: 2.32,
its worst mean of four seeds 2.33 in ten groups) well below the target of 2.37.
"""

from functools import cache

import numpy as np

from autograder.expect import value_of
from autograder.inside.harness import Call, Check, CheckFailed, Outcome
from proof_lm.batching import random_batches
from proof_lm.corpus import load_names, split_names
from proof_lm.nplm import init_nplm, nplm_loss_and_grads, nplm_mean_loss
from proof_lm.vocab import build_vocab
from proof_lm.windows import name_windows

STEPS, BATCH, TARGET, HIDDEN_SEEDS = 300, 64, 2.37, 4
MAX_RATE = 1000.0  # past any rate that trains: a bound on what the judge multiplies by
UNIFORM = float(np.log(27))  # the dev loss of a uniform guess over the names' 27 characters


@cache
def _windows() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """The chapter's training and dev windows (context 3) and the vocabulary size."""
    names = load_names()
    stoi, itos = build_vocab(names)
    train, dev, _ = split_names(names)
    X, Y = (t.numpy() for t in name_windows(train, stoi, 3))
    X_dev, Y_dev = (t.numpy() for t in name_windows(dev, stoi, 3))
    return X, Y, X_dev, Y_dev, len(itos)


def dev_loss_after(rates: np.ndarray, seed: int) -> tuple[float, int | None]:
    """Dev loss after SGD with one rate per step, as the chapter trains; and the step where the
    training loss stopped being finite (None if it never did)."""
    X, Y, X_dev, Y_dev, V = _windows()
    rng = np.random.default_rng(seed)
    P = init_nplm(V, 10, 3, 200, rng)
    with np.errstate(all="ignore"):
        for step, (xb, yb) in enumerate(random_batches(X, Y, BATCH, len(rates), rng)):
            loss, grads = nplm_loss_and_grads(P, xb, yb)
            if not np.isfinite(loss):
                return float("inf"), step
            for name, grad in grads.items():
                P[name] -= rates[step] * grad
        return float(nplm_mean_loss(P, X_dev, Y_dev)), None


def as_rates(value: object, steps: int) -> np.ndarray:
    """A returned schedule as float64 rates, one per step, finite and non-negative."""
    if isinstance(value, list | tuple):
        if len(value) != steps:
            raise CheckFailed(f"returned {len(value)} rates for {steps} steps: one rate per step")
        if not all(
            isinstance(r, int | float | np.number) and not isinstance(r, bool) for r in value
        ):
            raise CheckFailed("the rates must be numbers")
        value = np.array(value, dtype=np.float64)
    if not isinstance(value, np.ndarray) or value.dtype.kind not in "fiu":
        raise CheckFailed(
            f"returned {type(value).__name__}; expected a list or a 1-D array of {steps} numbers"
        )
    if value.shape != (steps,):
        raise CheckFailed(f"returned shape {value.shape} for {steps} steps: one rate per step")
    rates = value.astype(np.float64)
    if not np.isfinite(rates).all():
        raise CheckFailed("a rate is nan or inf")
    if (rates < 0).any():
        raise CheckFailed("a rate is negative: a step against the gradient's descent climbs")
    if rates.max(initial=0) > MAX_RATE:
        raise CheckFailed(f"a rate above {MAX_RATE:g}: no step that large trains this model")
    return rates


def _shape_of(rates: np.ndarray) -> str:
    """What the schedule's shape says about a miss, symptom and concept only."""
    peak, tail = float(rates.max(initial=0)), float(rates[-len(rates) // 10 :].mean())
    if peak == 0:
        return "every rate is 0: nothing moves"
    if np.ptp(rates) <= 1e-12 * peak:
        return (
            "the rate is the same at every step: with minibatch noise a fixed rate stops "
            "improving at a level the rate itself sets (what did the step decay change?)"
        )
    if tail > 0.3 * peak:
        return (
            "the last tenth of the steps still runs near the peak rate: the final steps jump "
            "around the bottom of the valley instead of settling into it"
        )
    if float(np.median(rates)) < 0.15 * peak:
        return (
            "most of the steps run at a small fraction of the peak rate: the schedule settles "
            "long before the budget is spent"
        )
    if peak < 0.5:
        return (
            "the largest rate is small for a budget of 300 steps: most of the budget goes on "
            "steps that barely move (how far is it from the edge the range test found?)"
        )
    return "compare your schedule's loss curve with the chapter's, seed by seed"


def _judge_target(seeds: list[int]) -> Check:
    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        rates = as_rates(value_of(outcome), STEPS)
        losses = []
        for seed in seeds:
            loss, diverged = dev_loss_after(rates, seed)
            if diverged is not None:
                raise CheckFailed(
                    f"training diverged: the loss stopped being finite at step {diverged} "
                    f"(rate {rates[diverged]:.3g}): a rate past the edge the range test finds"
                )
            if loss > UNIFORM:
                raise CheckFailed(
                    f"training made the model worse than a uniform guess (dev loss {loss:.2f} "
                    f"nats, ln V = {UNIFORM:.2f}): a rate past the edge the range test finds"
                )
            losses.append(loss)
        mean = float(np.mean(losses))
        if mean > TARGET:
            raise CheckFailed(
                f"mean dev loss {mean:.3f} nats over {len(seeds)} hidden seeds; the target is "
                f"at most {TARGET}: {_shape_of(rates)}"
            )

    what = f"{STEPS} steps of batch {BATCH}: mean dev loss at most {TARGET} over hidden seeds"
    return Check(what, [Call((STEPS,))], judge)


def _judge_length(steps: int) -> Check:
    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        as_rates(value_of(outcome), steps)

    what = f"learning_rates({steps}): one finite, non-negative rate per step"
    return Check(what, [Call((steps,))], judge)


def learning_rates_checks(rng: np.random.Generator) -> list[Check]:
    """Other budgets give one rate per step; 300 steps reach the target over hidden seeds."""
    seeds = [int(s) for s in rng.integers(1000, 2**31, HIDDEN_SEEDS)]
    return [_judge_length(steps) for steps in (1, 50, 1000)] + [_judge_target(seeds)]
