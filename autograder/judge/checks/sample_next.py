"""Hidden checks for chapter 05's `sample_next`: plain sampling, temperature, greedy top_k=1, top-k then top-p, reproducibility, no global state."""

import math

import numpy as np

from autograder.judge.check import Check, CheckFailed, describe_error
from autograder.judge.checks.sampling_shared import (
    WORKED,
    clear_of_boundaries,
    distinct_logits,
    reference_temperature,
    reference_top_k,
    reference_top_p,
)
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    value_of,
)
from autograder.sandbox.guest import sampling_probes
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="sample_next",
    chapter="05_sampling",
    points=3,
    kind="debug",
    library=("sampling:filter_probs", "sampling:draw"),
)


def filtered(
    logits: np.ndarray, temperature: float, top_k: int | None, top_p: float | None
) -> np.ndarray:
    """The exact distribution sample_next must draw from."""
    probs = (
        reference_top_k(logits, top_k, temperature)
        if top_k is not None
        else reference_temperature(logits, temperature)
    )
    if top_p is None:
        return probs
    with np.errstate(divide="ignore"):
        return reference_top_p(np.log(probs), top_p)


def order_slips(
    logits: np.ndarray, temperature: float, top_k: int | None, top_p: float | None
) -> list[tuple[str, np.ndarray]]:
    """(hint, distribution) of the classic mistakes in the order of temperature, top-k, top-p."""
    slips = []
    if top_p is not None or top_k is not None:
        at_one = filtered(logits, 1.0, top_k, top_p)
        with np.errstate(divide="ignore"):
            late = reference_temperature(np.log(at_one), temperature)
        slips.append(
            (
                "the draws follow the filters cut at temperature 1 and the temperature applied "
                "afterwards: which distribution do the filters cut?",
                late,
            )
        )
    if top_p is not None and top_k is not None:
        with np.errstate(divide="ignore"):
            first_p = reference_top_k(np.log(reference_top_p(logits, top_p, temperature)), top_k)
        # top-p before top-k and top-p on the top k not yet renormalised measure the same masses
        slips.append(
            (
                "the draws follow top-p measuring its mass before top-k renormalised the "
                "distribution (top-p run first, or on the top k not yet renormalised): which "
                "distribution does top-p measure?",
                first_p,
            )
        )
    return slips


def binomial_range(n: int, p: float, tail: float = 1e-10) -> tuple[int, int]:
    """The counts [low, high] outside which each tail of Binomial(n, p) has probability < `tail`.

    Exact (log-space pmf), so a correct sampler fails a token with probability below 2 * tail
    whatever the seed, even for rare tokens where a normal approximation is poor.
    """
    if p <= 0.0:
        return 0, 0
    if p >= 1.0:
        return n, n
    ks = np.arange(n + 1)
    log_factorial = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1)))])
    log_choose = log_factorial[n] - log_factorial - log_factorial[::-1]
    pmf = np.exp(log_choose + ks * math.log(p) + (n - ks) * math.log1p(-p))
    lower_tail = np.cumsum(pmf)  # P(X <= k)
    upper_tail = np.cumsum(pmf[::-1])[::-1]  # P(X >= k)
    low = int(ks[lower_tail >= tail][0])
    high = int(ks[upper_tail >= tail][-1])
    return low, high


def _sample_check(logits: np.ndarray, kwargs: dict, seed: int, draws: int, what: str) -> Check:
    temperature = kwargs.get("temperature", 1.0)
    if kwargs.get("top_p") is not None:  # keep p clear of the cumulative masses (ties are open)
        before_top_p = filtered(logits, temperature, kwargs.get("top_k"), None)
        with np.errstate(divide="ignore"):
            kwargs = {
                **kwargs,
                "top_p": clear_of_boundaries(np.log(before_top_p), kwargs["top_p"], 1.0),
            }
    expected = filtered(logits, temperature, kwargs.get("top_k"), kwargs.get("top_p"))
    unfiltered = reference_temperature(logits, temperature)
    ranges = [binomial_range(draws, float(q)) for q in expected]
    slips = [
        (hint, dist, [binomial_range(draws, float(q)) for q in dist])
        for hint, dist in order_slips(logits, temperature, kwargs.get("top_k"), kwargs.get("top_p"))
        if not np.allclose(dist, expected)
    ]
    twice = filtered(logits, temperature**2, kwargs.get("top_k"), kwargs.get("top_p"))
    if temperature != 1.0 and twice.max() < 0.99 and not np.allclose(twice, expected):
        slips.append(
            (
                "the draws follow the logits divided by the temperature twice: where is the "
                "temperature applied, and how many times?",
                twice,
                [binomial_range(draws, float(q)) for q in twice],
            )
        )
    unfiltered_ranges = [binomial_range(draws, float(q)) for q in unfiltered]
    extreme = float(np.max(np.abs(np.asarray(logits, dtype=np.float64)))) / temperature > 700
    overflow = (
        f" (here the logits reach {np.max(np.abs(logits)):.0f} in size at temperature "
        f"{temperature:g}: not numerically stable, an exp overflows)"
        if extreme
        else ""
    )

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        if outcome.error is not None:
            raise CheckFailed(describe_error(outcome) + overflow)
        report = value_of(outcome)
        if not isinstance(report, dict):
            raise CheckFailed("the draws could not be read")
        first = report["first"]
        picks = []
        for token in first:
            if isinstance(token, np.ndarray) and token.size == 1:
                token = token.reshape(()).item()
            if isinstance(token, bool) or not isinstance(token, int | float) or token != int(token):
                raise CheckFailed(
                    f"returned {type(token).__name__} {token!r}; expected one integer token id"
                )
            picks.append(int(token))
        picks = np.array(picks)
        if picks.min() < 0 or picks.max() >= len(logits):
            raise CheckFailed(
                f"drew token {picks.max() if picks.max() >= len(logits) else picks.min()}, "
                f"outside 0..V-1{overflow}"
            )
        if report.get("logits_modified"):
            raise CheckFailed(
                "the logits argument was modified in place: an operation wrote into the caller's "
                "array"
            )
        if report["global_state_moved"]:
            raise CheckFailed(
                "the global random state was used: the draws do not come from the generator you are "
                "given alone"
            )
        if report["first"][: len(report["second"])] != report["second"]:
            raise CheckFailed(
                "the same generator seed gave different draws: something besides the generator you "
                "are given decides them"
            )
        counts = np.bincount(picks, minlength=len(logits))
        n = len(picks)

        def outside(bounds: list[tuple[int, int]]) -> np.ndarray:
            return np.array([not lo <= c <= hi for c, (lo, hi) in zip(counts, bounds, strict=True)])

        forbidden = (expected == 0) & (counts > 0)
        off = outside(ranges)
        if forbidden.any() or off.any():
            for hint, dist, bounds in slips:
                if not ((dist == 0) & (counts > 0)).any() and not outside(bounds).any():
                    raise CheckFailed(hint)
        if forbidden.any():
            token = int(np.flatnonzero(forbidden)[0])
            raise CheckFailed(
                f"drew token {token}, which the filters remove (probability 0 after the "
                "temperature, top-k and top-p)"
            )
        if off.any() and counts.max() == n:
            raise CheckFailed(
                f"all {n} draws gave token {int(counts.argmax())}; expected about "
                f"{n * expected[counts.argmax()]:.0f}: the draws are not random draws from the "
                "generator you are given (an argmax? a new generator on every call?), or not at "
                "the temperature given (applied more than once?)"
            )
        if off.any():
            token = int(np.flatnonzero(off)[0])
            unfiltered_hint = (
                " (these look like the unfiltered probabilities: were top-k and top-p applied?)"
                if not outside(unfiltered_ranges).any()
                else ""
            )
            raise CheckFailed(
                f"token {token} was drawn {counts[token]} times in {n}; expected about "
                f"{n * expected[token]:.0f}" + unfiltered_hint
            )

    call = Call(
        (logits, seed, draws, kwargs),
        probe=sampling_probes.sample_next_probe,
    )
    return Check(what, [call], judge)


def sample_next_checks(rng: np.random.Generator) -> list[Check]:
    """Plain sampling, temperature, greedy top_k=1, top-k then top-p, reproducibility, no global state.

    Also logits near +-1000, tiny and huge temperatures, float32 and integer logits. Every count is
    judged against exact binomial tails of 1e-10, so a correct sampler fails with probability
    below 1e-8 over all checks, whatever the seed.
    """
    logits = distinct_logits(rng, 6, scale=1.0)
    seeds = [int(seed) for seed in rng.integers(0, 2**31, size=20)]
    return [
        _sample_check(WORKED, {}, seeds[0], 2000, "the worked logits at temperature 1"),
        _sample_check(
            logits, {"temperature": 0.5}, seeds[1], 2000, "random logits at temperature 0.5"
        ),
        _sample_check(
            logits, {"temperature": 3.0}, seeds[2], 2000, "random logits at temperature 3"
        ),
        _sample_check(logits, {"top_k": 1}, seeds[3], 200, "top_k=1 is greedy"),
        _sample_check(logits, {"top_k": 3}, seeds[4], 2000, "top_k=3"),
        _sample_check(logits, {"top_p": 0.7}, seeds[5], 2000, "top_p=0.7"),
        _sample_check(
            logits,
            {"top_k": 4, "top_p": 0.8, "temperature": 1.5},
            seeds[6],
            2000,
            "temperature 1.5, then top_k=4, then top_p=0.8 on the renormalised top 4",
        ),
        _sample_check(
            np.log(np.array([0.3, 0.25, 0.2, 0.15, 0.1])),
            {"top_k": 2, "top_p": 0.5},
            seeds[7],
            2000,
            "top_k=2 then top_p=0.5 keeps one token (top-p sees the renormalised top 2)",
        ),
        _sample_check(
            np.log(np.array([0.5, 0.3, 0.2])),
            {"temperature": 0.5, "top_p": 0.6},
            seeds[14],
            1000,
            "temperature 0.5 before top_p=0.6 keeps one token (at temperature 1 it would keep two)",
        ),
        _sample_check(logits + 1000.0, {}, seeds[8], 1000, "every logit near +1000"),
        _sample_check(
            logits - 1000.0, {"top_k": 3}, seeds[9], 1000, "every logit near -1000, top_k=3"
        ),
        _sample_check(
            logits, {"temperature": 0.001}, seeds[10], 200, "temperature 0.001 (greedy in effect)"
        ),
        _sample_check(
            logits, {"temperature": 100.0}, seeds[11], 1000, "temperature 100 (nearly uniform)"
        ),
        _sample_check(
            logits.astype(np.float32),
            {"top_p": 0.9, "temperature": 0.8},
            seeds[12],
            1000,
            "float32 logits, temperature 0.8, top_p=0.9",
        ),
        _sample_check(
            np.array([2, 0, 1, -1]), {"top_k": 3}, seeds[13], 1000, "integer logits, top_k=3"
        ),
        _sample_check(
            200.0 + logits * 1e-3,
            {"temperature": 1e-3},
            seeds[15],
            1000,
            "logits near 200 at temperature 0.001",
        ),
        _sample_check(
            np.sort(rng.uniform(-1000, 1000, 6)),
            {"temperature": 1e3, "top_k": 5},
            seeds[16],
            1000,
            "logits of +-1000 at temperature 1000, top_k=5",
        ),
        _sample_check(np.array([0.7]), {}, seeds[17], 50, "a single logit (V = 1)"),
    ]
