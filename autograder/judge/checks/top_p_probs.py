"""Hidden checks for chapter 05's `top_p_probs`: the worked example, the crossing token kept, a tiny p, p = 1, temperature first, bad temperature."""

import numpy as np

from autograder.judge.check import Check
from autograder.judge.checks.layouts import with_layout
from autograder.judge.checks.sampling_shared import (
    WORKED,
    _judge_probs,
    _judge_rejects,
    clear_of_boundaries,
    distinct_logits,
    reference_temperature,
    reference_top_p,
)
from autograder.judge.declaration import Exercise

EXERCISE = Exercise(
    name="top_p_probs",
    chapter="05_sampling",
    points=2,
    kind="debug",
    library=("sampling:filter_probs",),
)


def _least_likely_first(probs: np.ndarray, p: float) -> np.ndarray:
    """Top-p with the ranking reversed: the least likely token first (and always kept)."""
    order = np.argsort(probs, kind="stable")
    before = np.cumsum(probs[order]) - probs[order]
    keep = order[(before < p) | (np.arange(len(order)) == 0)]
    out = np.zeros_like(probs)
    out[keep] = probs[keep]
    return out / out.sum()


def _mass_including_each(probs: np.ndarray, p: float) -> np.ndarray:
    """Top-p that keeps a token while the mass up to and including it is below p (the top always)."""
    order = np.argsort(-probs, kind="stable")
    keep = order[(np.cumsum(probs[order]) < p) | (np.arange(len(order)) == 0)]
    out = np.zeros_like(probs)
    out[keep] = probs[keep]
    return out / out.sum()


def _top_p_check(logits: np.ndarray, p: float, temperature: float | None, what: str) -> Check:
    t = 1.0 if temperature is None else temperature
    expected = reference_top_p(logits, p, t)
    probs = reference_temperature(logits, t)
    set_at_one = reference_top_p(logits, p, 1.0) > 0
    after_filtering = "the kept set ignores the temperature: it was applied after filtering"
    crossing = "one token too few: the token whose probability crosses p is dropped"
    diagnoses = [
        (crossing, reference_top_p(logits, p, t, strict=False)),
        (crossing, _mass_including_each(probs, p)),
        (
            "the kept probabilities do not sum to 1",
            np.where(expected > 0, probs, 0.0),
        ),
        (after_filtering, reference_top_p(logits, p, 1.0) if t != 1 else None),
        (
            after_filtering,
            np.where(set_at_one, probs, 0.0) / probs[set_at_one].sum() if t != 1 else None,
        ),
        (
            "the kept set starts from the least likely tokens: the ranking runs the wrong way",
            _least_likely_first(probs, p),
        ),
    ]
    kwargs = {} if temperature is None else {"temperature": temperature}
    return _judge_probs((logits, p), kwargs, logits, expected, what, diagnoses, t)


def top_p_probs_checks(rng: np.random.Generator) -> list[Check]:
    """The worked example, the crossing token kept, a tiny p, p = 1, temperature first, bad temperature."""
    checks = [
        _top_p_check(WORKED, 0.9, None, "the worked example, p = 0.9 keeps two tokens"),
        _top_p_check(
            np.log(np.array([0.2, 0.5, 0.3])),
            0.6,
            None,
            "0.5, 0.3, 0.2 with p = 0.6 keeps the crossing 0.3",
        ),
        _top_p_check(WORKED, 1e-6, None, "a tiny p still keeps the top token"),
        _top_p_check(WORKED, 1.0, None, "p = 1 keeps everything"),
    ]
    for V, p, t in [(8, 0.5, None), (27, 0.9, 0.8), (10, 0.3, 2.5), (5, 0.75, 0.5)]:
        logits = distinct_logits(rng, V)
        p = clear_of_boundaries(logits, p, t or 1.0)
        checks.append(
            _top_p_check(logits, p, t, f"random logits, V={V}, p={p}, temperature {t or 1.0}")
        )
    for logits, p, t, what in [
        (distinct_logits(rng, 9) * 300, 0.95, None, "logits in the hundreds to thousands"),
        (distinct_logits(rng, 8) - 1000.0, 0.6, None, "every logit near -1000"),
        (distinct_logits(rng, 10, scale=0.5), 0.9, 0.001, "temperature 0.001"),
        (distinct_logits(rng, 6), 0.45, 1e4, "temperature 10,000 (nearly uniform)"),
        (distinct_logits(rng, 7).astype(np.float32), 0.8, 0.9, "float32 logits"),
        (np.array([3, 0, 1, -2, 2]), 0.7, None, "integer logits"),
        (
            200.0 + distinct_logits(rng, 9) * 1e-3,
            0.8,
            1e-3,
            "logits near 200, temperature 0.001",
        ),
        (rng.uniform(-1000, 1000, 10), 0.6, 1e3, "logits of +-1000 at temperature 1000"),
        (np.array([2.5]), 0.5, None, "a single logit (V = 1)"),
    ]:
        p = clear_of_boundaries(logits, p, t or 1.0)
        checks.append(_top_p_check(logits, p, t, f"{what}, p={p:g}"))
    checks.append(
        _judge_rejects(
            (WORKED, 0.9),
            {"temperature": -2.0},
            "a negative temperature raises ValueError",
            "temperature must be > 0",
        )
    )
    checks.append(
        _judge_rejects(
            (WORKED, 0.9),
            {"temperature": 0.0},
            "temperature 0 raises ValueError",
            "temperature must be > 0",
        )
    )
    logits = distinct_logits(rng, 8)
    checks.append(
        with_layout(
            _top_p_check(logits, clear_of_boundaries(logits, 0.7, 1.0), None, "random logits, V=8"),
            "strided",
        )
    )
    return checks
