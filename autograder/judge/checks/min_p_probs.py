"""Hidden checks for chapter 05's challenge: min_p_probs (min-p sampling's filter).

The reference loops in Python floats: temperature, then keep every token whose probability is at
least p_base times the largest one, renormalise. Thresholds are drawn away from any probability,
since the contract leaves a token exactly at the threshold open.
"""

import math

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.declaration import Exercise
from autograder.judge.expect import array_answer, expect_close, expect_raises, expect_unchanged
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="min_p_probs",
    chapter="05_sampling",
    points=2,
    extra=True,
    library=("sampling:filter_probs",),
)


def reference_softmax(logits: np.ndarray, temperature: float) -> list[float]:
    """softmax(logits / temperature) by a loop."""
    scaled = [float(z) / temperature for z in logits]
    top = max(scaled)
    exps = [math.exp(z - top) for z in scaled]
    total = math.fsum(exps)
    return [e / total for e in exps]


def reference_min_p(
    logits: np.ndarray,
    p_base: float,
    temperature: float = 1.0,
    filter_temperature: float | None = None,
) -> np.ndarray:
    """Keep each token with probability >= p_base * max probability; renormalise.

    `filter_temperature` (a slip) decides which tokens are kept at another temperature.
    """
    probs = reference_softmax(logits, temperature)
    judged = reference_softmax(logits, filter_temperature or temperature)
    top = max(judged)
    kept = [p if q >= p_base * top else 0.0 for p, q in zip(probs, judged, strict=True)]
    total = math.fsum(kept)
    return np.array([p / total for p in kept])


def _safe_logits(rng: np.random.Generator, V: int, p_base: float, temperature: float) -> np.ndarray:
    """Random logits with no probability within 2 % of the threshold p_base * max."""
    while True:
        logits = rng.normal(0, 2.0, V)
        ratios = np.exp((logits - logits.max()) / temperature)
        if p_base == 0:
            return logits
        apart = np.all(np.abs(np.log(ratios[ratios > 0] / p_base)) > 0.02)
        if apart and 1 < (ratios >= p_base).sum() < V:
            return logits


def _check(logits: np.ndarray, p_base: float, temperature: float | None, what: str) -> Check:
    t = 1.0 if temperature is None else temperature
    expected = reference_min_p(logits, p_base, t)
    probs = np.array(reference_softmax(logits, t))
    diagnoses = [
        (
            "the threshold is absolute: min-p's threshold scales with the most likely token's "
            "probability",
            _absolute(probs, p_base),
        ),
        (
            "the kept set ignores the temperature: it was applied after filtering",
            reference_min_p(logits, p_base, t, filter_temperature=1.0) if t != 1 else None,
        ),
        ("the temperature was ignored", reference_min_p(logits, p_base, 1.0) if t != 1 else None),
        (
            "the kept probabilities do not sum to 1",
            np.where(expected > 0, probs, 0.0),
        ),
        (
            "that keeps the tokens below the threshold and drops the likely ones",
            _below(probs, p_base),
        ),
    ]
    kwargs = {} if temperature is None else {"temperature": temperature}
    size = (
        float(np.abs(logits).max(initial=0)) / t
    )  # float32 inside: autograder.judge.expect.tolerance

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        got = array_answer(outcome, logits.shape, kinds="f")
        if not np.isfinite(got).all():
            raise CheckFailed(
                "got nan or inf: not numerically stable (an exp overflowed, or every power underflowed)"
            )
        expect_close(got, expected, rtol=1e-7, atol=1e-12, diagnoses=diagnoses, inputs=size)
        expect_unchanged(outcome, (logits, p_base))

    return Check(what, [Call((logits, p_base), kwargs)], judge)


def _absolute(probs: np.ndarray, p_base: float) -> np.ndarray | None:
    """What keeping p >= p_base (no scaling by the top probability) gives, when it keeps any."""
    kept = np.where(probs >= p_base, probs, 0.0)
    return kept / kept.sum() if kept.sum() > 0 else None


def _below(probs: np.ndarray, p_base: float) -> np.ndarray | None:
    kept = np.where(probs < p_base * probs.max(), probs, 0.0)
    return kept / kept.sum() if kept.sum() > 0 else None


def _rejects(args: tuple, kwargs: dict, what: str, hint: str) -> Check:
    def judge(outcomes: list[Outcome]) -> None:
        expect_raises(outcomes[0], "ValueError", hint)

    return Check(what, [Call(args, kwargs)], judge)


def min_p_probs_checks(rng: np.random.Generator) -> list[Check]:
    """The worked logits, random logits, temperatures, p_base 0 and 1, +-1000, bad arguments."""
    worked = np.array([2.0, 1.0, 0.1])
    checks = [
        _check(worked, 0.3, None, "the worked logits, p_base 0.3 (keeps two tokens)"),
        _check(worked, 0.1, None, "the worked logits, p_base 0.1 (keeps all three)"),
        _check(worked, 0.3, 2.0, "the worked logits, p_base 0.3 at temperature 2"),
        _check(worked, 0.0, None, "p_base 0 keeps every token"),
        _check(worked, 1.0, None, "p_base 1 keeps only the most likely token"),
    ]
    for V, p_base, t in [(8, 0.2, None), (27, 0.05, 0.7), (12, 0.4, 1.8), (6, 0.1, 0.3)]:
        logits = _safe_logits(rng, V, p_base, t or 1.0)
        checks.append(
            _check(
                logits, p_base, t, f"random logits, V={V}, p_base {p_base}, temperature {t or 1.0}"
            )
        )
    huge = _safe_logits(rng, 7, 0.1, 1.0) * 400
    checks += [
        _check(huge, 0.1, None, "logits of several hundred"),
        _check(rng.normal(0, 1, 5) + 1000.0, 0.5, 0.5, "every logit near +1000"),
        _rejects((worked, 1.5), {}, "p_base > 1 raises ValueError", "p_base must lie in [0, 1]"),
        _rejects((worked, -0.1), {}, "p_base < 0 raises ValueError", "p_base must lie in [0, 1]"),
        _rejects(
            (worked, 0.2),
            {"temperature": 0.0},
            "temperature 0 raises ValueError",
            "temperature must be > 0",
        ),
    ]
    return checks
