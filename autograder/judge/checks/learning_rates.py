"""Hidden checks for chapter 06's design exercise: learning_rates (a schedule for 300 SGD steps).

The student's function only returns numbers; the training that judges them runs here, on the
trusted side, with the chapter's model and data and seeds the student never sees. The target sits
between the chapter's own rates and a schedule designed for the budget. Measured as means over
seeds: constant rates from 0.1 to 1 end at 2.45-2.57 nats, the range test's rate with the chapter's
step decay at about 2.40, and a high peak decayed to zero (linear with a warm-up from 1.5: 2.32,
its worst mean of four seeds 2.33 in ten groups) well below the target of 2.37.
"""

from dataclasses import dataclass
from functools import cache

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.declaration import Exercise
from autograder.judge.expect import value_of
from autograder.sandbox.guest.protocol import Call, Outcome
from proof_lm.corpus import load_names, split_names
from proof_lm.nplm import init_nplm, nplm_mean_loss
from proof_lm.vocab import build_vocab
from proof_lm.windows import name_windows

EXERCISE = Exercise(
    name="learning_rates",
    chapter="06_training",
    points=3,
    kind="design",
)

STEPS, BATCH, TARGET, HIDDEN_SEEDS = 300, 64, 2.37, 6
MAX_RATE = 1000.0  # past any rate that trains: a bound on what the judge multiplies by
SPIKE = 3.0  # a training loss this many times the first one is a step past the edge


@dataclass(frozen=True)
class Run:
    """What one training run with the student's rates shows."""

    dev_loss: float  # inf once the training loss or the weights stop being finite
    first_loss: float  # the first minibatch's, before any step
    worst_loss: float  # the largest minibatch loss after the first ten steps
    worst_step: int


@cache
def _windows() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """The chapter's training and dev windows (context 3) and the vocabulary size."""
    names = load_names()
    stoi, itos = build_vocab(names)
    train, dev, _ = split_names(names)
    X, Y = (t.numpy() for t in name_windows(train, stoi, 3))
    X_dev, Y_dev = (t.numpy() for t in name_windows(dev, stoi, 3))
    return X, Y, X_dev, Y_dev, len(itos)


def dev_losses_after(rates: np.ndarray, seeds: list[int]) -> list[Run]:
    """Train as the chapter does, one rate per step, from each of `seeds`; the dev losses and spikes.

    The seeds' models train side by side (each one's parameters, batches and steps its own, as one
    run per seed would draw them): one batched step for all of them. The runs are one run per
    seed's up to rounding; near the edge of stability training is chaotic, and rounding alone sends
    two runs apart (far above the target: no verdict turns on it).
    """
    import torch
    import torch.nn.functional as F  # noqa: N812 - the PyTorch convention

    X, Y, X_dev, Y_dev, V = _windows()
    models, draws = [], []
    for seed in seeds:  # as `random_batches` draws them after the initialisation
        rng = np.random.default_rng(seed)
        models.append(init_nplm(V, 10, 3, 200, rng))
        draws.append([rng.integers(0, len(Y), BATCH) for _ in rates])
    k = len(seeds)
    P = {
        name: torch.from_numpy(np.stack([m[name] for m in models])).requires_grad_()
        for name in ("E", "W1", "b1", "W2", "b2")
    }  # E (k, V, d), W1 (k, 3d, dh), b1 (k, dh), W2 (k, dh, V), b2 (k, V)
    index = torch.from_numpy(np.array(draws)).transpose(0, 1)  # (steps, k, BATCH)
    X, Y = torch.from_numpy(X), torch.from_numpy(Y)
    rows = torch.arange(k)[:, None, None]
    losses: list[list[float]] = [[] for _ in seeds]
    training = torch.ones(k, dtype=torch.bool)
    for step, rate in enumerate(rates.tolist()):
        xb, yb = X[index[step]], Y[index[step]]  # (k, BATCH, 3), (k, BATCH)
        x = P["E"][rows, xb].flatten(2)  # (k, BATCH, 3d)
        h = torch.tanh(torch.bmm(x, P["W1"]) + P["b1"][:, None])
        logits = torch.bmm(h, P["W2"]) + P["b2"][:, None]  # (k, BATCH, V)
        loss = F.cross_entropy(logits.transpose(1, 2), yb, reduction="none").mean(1)  # (k,)
        loss.sum().backward()  # each model's gradient is its own loss's
        with torch.no_grad():
            for i, value in enumerate(loss.tolist()):
                if training[i]:
                    losses[i].append(value)
            training &= torch.isfinite(loss)  # a model stops at its first non-finite loss
            for p in P.values():
                step_size = torch.where(training.view(-1, *[1] * (p.dim() - 1)), rate * p.grad, 0)
                p -= step_size
                p.grad = None
        if not training.any():
            break
    runs = []
    for i, seen in enumerate(losses):
        model = {name: p[i].detach().numpy() for name, p in P.items()} | {"W3": None}
        dev = float(nplm_mean_loss(model, X_dev, Y_dev)) if np.isfinite(seen[-1]) else np.inf
        later = seen[10:] or [seen[-1]]
        worst = int(np.argmax(later)) + len(seen) - len(later)
        runs.append(Run(dev if np.isfinite(dev) else np.inf, seen[0], seen[worst], worst))
    return runs


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def as_rates(value: object, steps: int) -> np.ndarray:
    """A returned schedule as float64 rates, one per step, finite and non-negative."""
    if isinstance(value, list | tuple):
        if len(value) != steps:
            raise CheckFailed(
                f"returned {_count(len(value), 'rate')} for {_count(steps, 'step')}: one rate per step"
            )
        for i, r in enumerate(value):
            if isinstance(r, bool) or not isinstance(r, int | float | np.integer | np.floating):
                raise CheckFailed(f"rate {i} is {type(r).__name__}; expected a number")
            if abs(r) > MAX_RATE:  # also keeps float() away from integers too large for it
                raise CheckFailed(f"rate {i} is above {MAX_RATE:g}: no step that large trains")
        value = np.array([float(r) for r in value], dtype=np.float64)
    if not isinstance(value, np.ndarray):
        raise CheckFailed(
            f"returned {type(value).__name__}; expected a list or a 1-D array of {steps} numbers"
        )
    if value.dtype.kind not in "fiu":
        raise CheckFailed(f"returned an array of dtype {value.dtype}; expected numbers")
    if value.shape != (steps,):
        raise CheckFailed(
            f"returned shape {value.shape} for {_count(steps, 'step')}: one rate per step"
        )
    rates = value.astype(np.float64)
    if not np.isfinite(rates).all():
        raise CheckFailed(f"rate {int(np.argmin(np.isfinite(rates)))} is nan or inf")
    if (rates < 0).any():
        raise CheckFailed(
            f"rate {int(np.argmax(rates < 0))} is negative: a step against the gradient's "
            "descent climbs"
        )
    if rates.max(initial=0) > MAX_RATE:
        raise CheckFailed(f"a rate is above {MAX_RATE:g}: no step that large trains")
    return rates


def _why(rates: np.ndarray, runs: list[Run]) -> str:
    """What the schedule and its runs show about a miss: the symptom and the concept, no fix."""
    peak = float(rates.max(initial=0))
    spiked = max(runs, key=lambda run: run.worst_loss / run.first_loss)
    if peak == 0:
        return "every rate is 0: nothing moves"
    if spiked.worst_loss > SPIKE * spiked.first_loss:
        return (
            f"on one seed the training loss spiked to {spiked.worst_loss:.1f} at step "
            f"{spiked.worst_step} (rate {rates[spiked.worst_step]:.3g}; it started at "
            f"{spiked.first_loss:.2f}): steps past the edge the range test finds undo what the "
            "earlier ones learned"
        )
    if np.ptp(rates) <= 1e-12 * peak:
        return (
            "the rate is the same at every step: with minibatch noise a fixed rate stops "
            "improving at a level the rate itself sets (what did the step decay change?)"
        )
    if float(rates[-len(rates) // 10 :].mean()) > 0.3 * peak:
        return (
            "the last tenth of the steps still runs near the peak rate: the final steps jump "
            "around the bottom of the valley and never settle into it"
        )
    if float(np.median(rates)) < 0.15 * peak:
        return (
            "most of the steps run at a small fraction of the peak rate: the schedule settles "
            "long before the budget is spent"
        )
    if float(np.mean(rates < 0.5 * peak)) < 0.2:
        return (
            "fewer than a fifth of the steps run below half the peak rate: the decay comes so "
            "late that little of the budget is left to settle"
        )
    if peak < 0.5:
        return (
            "the largest rate is small for a budget of 300 steps: most of the budget goes on "
            "steps that barely move (how far is it from the edge the range test found?)"
        )
    return (
        "no single part of the schedule stands out: measure its peak and the length of its "
        "decay one at a time, each on more seeds than three"
    )


def _judge_target(seeds: list[int]) -> Check:
    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        rates = as_rates(value_of(outcome), STEPS)
        runs = dev_losses_after(rates, seeds)
        for run in runs:
            if not np.isfinite(run.dev_loss):
                raise CheckFailed(
                    f"training diverged: the loss or the weights stopped being finite by step "
                    f"{run.worst_step}: a rate past the edge the range test finds"
                )
        mean = float(np.mean([run.dev_loss for run in runs]))
        if mean > TARGET:
            raise CheckFailed(
                f"mean dev loss {mean:.3f} nats over {len(seeds)} hidden seeds; the target is "
                f"at most {TARGET}: {_why(rates, runs)}"
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
    """Other budgets (one step, a short and a long one drawn from the seed) give one rate per step;
    300 steps reach the target over hidden seeds."""
    budgets = (1, int(rng.integers(2, 100)), int(rng.integers(400, 2000)))
    seeds = [int(s) for s in rng.integers(1000, 2**31, HIDDEN_SEEDS)]
    return [_judge_length(steps) for steps in budgets] + [_judge_target(seeds)]
