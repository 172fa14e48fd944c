"""Hidden checks for chapter 05's `temperature_probs`: the worked table, random logits and temperatures, logits of +-1000, tiny temperatures down to the smallest float64, logits one float64 step apart, bad ones."""

import numpy as np

from autograder.judge.check import Check
from autograder.judge.checks.layouts import with_layout
from autograder.judge.checks.sampling_shared import (
    WORKED,
    _judge_probs,
    _judge_rejects,
    distinct_logits,
    reference_temperature,
)
from autograder.judge.declaration import Exercise

EXERCISE = Exercise(
    name="temperature_probs",
    chapter="05_sampling",
    points=1,
    kind="derive",
    library=("sampling:filter_probs",),
)


def _power_of_shifted(logits: np.ndarray, temperature: float) -> np.ndarray:
    """What exp(z - max z) ** (1 / t), renormalised, computes (the classic slip)."""
    z = np.asarray(logits, dtype=np.float64)
    with np.errstate(all="ignore"):
        e = np.exp(z - z.max()) ** (1 / temperature)
        return e / e.sum()


TIED = (
    "logits one rounding step apart came out tied: the distribution depends on the logits only "
    "through their differences, and here rounding lost those differences"
)
ROUNDED_AWAY = (
    ": the odds between neighbouring logits came out wrong. The distribution depends on the logits "
    "only through their differences, and here rounding lost those differences"
)


def _temperature_check(logits: np.ndarray, temperature: float, what: str) -> Check:
    expected = reference_temperature(logits, temperature)
    diagnoses = [
        (
            "a higher temperature made the distribution sharper: it should flatten it",
            reference_temperature(logits, 1 / temperature),
        ),
        ("the temperature was ignored", reference_temperature(logits, 1.0)),
        (
            "far logits lost their mass: their probabilities underflowed to 0 before the power "
            "could bring them back",
            _power_of_shifted(logits, temperature),
        ),
    ]
    return _judge_probs((logits, temperature), {}, logits, expected, what, diagnoses, temperature)


def _one_step_apart(top: float, others: int, temperature: float) -> Check:
    """Logits one float64 step apart at a temperature near that step: the odds between them are
    e^(step/temperature), of order one, and float64 holds them to 1e-15 (the difference of two
    logits is exact); a form that loses the difference to rounding gives other odds."""
    below = [top]
    for _ in range(others):
        below.append(float(np.nextafter(below[-1], -np.inf)))
    logits = np.array(below[::-1])
    what = (
        f"{others + 1} logits near {top:g}, one float64 step apart, at temperature {temperature:g}"
    )
    expected = reference_temperature(logits, temperature)
    # the uniform answer matches "the temperature was ignored" too: here it is the rounding's
    tied = (TIED, np.full(len(logits), 1 / len(logits)))
    return _judge_probs(
        (logits, temperature), {}, logits, expected, what, [tied], temperature, 1e-9, ROUNDED_AWAY
    )


def temperature_probs_checks(rng: np.random.Generator) -> list[Check]:
    """The worked table, random logits and temperatures, logits of +-1000, tiny temperatures down to the smallest float64, logits one float64 step apart, bad ones."""
    checks = [
        _temperature_check(WORKED, t, f"the worked table, temperature {t}") for t in (1.0, 0.5, 2.0)
    ]
    for V, t in [(5, 0.3), (27, 1.7), (10, 10.0), (2, 0.05)]:
        checks.append(
            _temperature_check(distinct_logits(rng, V), t, f"random logits, V={V}, temperature {t}")
        )
    checks.append(
        _temperature_check(rng.uniform(-1000, 1000, 6), 0.5, "logits of +-1000 at temperature 0.5")
    )
    checks.append(
        _temperature_check(np.array([3.0, 2.9, -1.0]), 0.001, "temperature 0.001 (nearly greedy)")
    )
    checks += [
        _temperature_check(WORKED, 1e-4, "the worked logits at temperature 0.0001"),
        _temperature_check(
            np.array([3.0, 3.0, 3.0, 3.0, 0.0, -1.0]),
            1e-4,
            "four tied favourites at temperature 0.0001",
        ),
        _temperature_check(
            distinct_logits(rng, 12, scale=0.5), 0.002, "12 close logits at temperature 0.002"
        ),
        _temperature_check(distinct_logits(rng, 7), 1e4, "temperature 10,000 (nearly uniform)"),
        _temperature_check(
            rng.normal(0, 2, 9) - 1000.0, 1.0, "every logit near -1000 (exp underflows to 0)"
        ),
        _temperature_check(rng.normal(0, 2, 9) + 1000.0, 2.0, "every logit near +1000"),
        _temperature_check(
            distinct_logits(rng, 6).astype(np.float32), 0.7, "float32 logits, temperature 0.7"
        ),
        _temperature_check(np.array([3, 1, 0, -2]), 0.5, "integer logits, temperature 0.5"),
        _temperature_check(
            200.0 + distinct_logits(rng, 8) * 1e-3,
            1e-3,
            "logits near 200 at temperature 0.001",
        ),
        _temperature_check(
            rng.uniform(-1000, 1000, 8), 1e3, "logits of +-1000 at temperature 1000"
        ),
        _temperature_check(
            rng.integers(-1000, 1001, 6), 300.0, "integer logits of +-1000 at temperature 300"
        ),
        _temperature_check(np.array([1.5]), 0.7, "a single logit (V = 1)"),
        _temperature_check(WORKED, 1e-306, "the worked logits at temperature 1e-306"),
        _temperature_check(
            rng.uniform(-1000, 1000, 6), 1e-310, "logits of +-1000 at temperature 1e-310"
        ),
        _temperature_check(
            np.array([2.0, -1.0, 2.0, 0.5]), 5e-324, "two tied favourites at temperature 5e-324"
        ),
        _one_step_apart(1000.0, 1, 7e-14),
        _one_step_apart(-3.0, 2, 3e-16),
    ]
    checks += [
        with_layout(
            _temperature_check(distinct_logits(rng, 7), 0.8, "random logits, V=7"), "strided"
        )
    ]
    checks += [
        _judge_rejects(
            (WORKED, 0.0), {}, "temperature 0 raises ValueError", "temperature must be > 0"
        ),
        _judge_rejects(
            (WORKED, -1.0),
            {},
            "a negative temperature raises ValueError",
            "temperature must be > 0",
        ),
        _judge_rejects(
            (WORKED, -1e-9),
            {},
            "a tiny negative temperature raises ValueError",
            "temperature must be > 0",
        ),
    ]
    return checks
