"""Hidden checks for chapter 05: temperature_probs, top_k_probs, top_p_probs, sample_next.

References sort explicitly and loop in Python floats; sample_next is judged in distribution over
thousands of draws from fixed seeds (deterministic), never by exact ids.
"""

import math

import numpy as np

from autograder.judge.check import Check, CheckFailed, describe_error
from autograder.judge.checks.layouts import with_layout
from autograder.judge.expect import (
    array_answer,
    expect_close,
    expect_raises,
    expect_unchanged,
    float32_rtol,
    value_of,
)
from autograder.sandbox.guest.calls import Call, Outcome

WORKED = np.array([2.0, 1.0, 0.1])


def reference_temperature(logits: np.ndarray, temperature: float) -> np.ndarray:
    """softmax(logits / temperature) by a loop."""
    scaled = [float(z) / temperature for z in logits]
    top = max(scaled)
    exps = [math.exp(z - top) for z in scaled]
    total = math.fsum(exps)
    return np.array([e / total for e in exps])


def reference_top_k(logits: np.ndarray, k: int, temperature: float = 1.0) -> np.ndarray:
    """Keep the k most probable after temperature; renormalise."""
    probs = reference_temperature(logits, temperature)
    keep = sorted(range(len(probs)), key=lambda i: -probs[i])[:k]
    out = np.zeros(len(probs))
    total = math.fsum(probs[i] for i in keep)
    for i in keep:
        out[i] = probs[i] / total
    return out


def reference_top_p(
    logits: np.ndarray, p: float, temperature: float = 1.0, strict: bool = True
) -> np.ndarray:
    """Keep, most probable first, each token whose preceding mass is < p (the top always); renormalise."""
    probs = reference_temperature(logits, temperature)
    out, before = np.zeros(len(probs)), 0.0
    for rank, i in enumerate(sorted(range(len(probs)), key=lambda j: -probs[j])):
        if rank > 0 and (before >= p if strict else before + probs[i] > p):
            break
        out[i] = probs[i]
        before += probs[i]
    return out / math.fsum(out)


def distinct_logits(rng: np.random.Generator, V: int, scale: float = 2.0) -> np.ndarray:
    """Random logits whose probabilities are well apart (no ties at any cut)."""
    while True:
        logits = rng.normal(0, scale, V)
        gaps = np.diff(np.sort(logits))
        if gaps.min() > 0.05:
            return logits


UNSTABLE = (
    "got nan or inf: not numerically stable at these logits and this temperature: an "
    "intermediate overflowed, or every term underflowed to 0 and the renormalisation was 0/0"
)


def _judge_probs(
    fn_args: tuple,
    kwargs: dict,
    logits: np.ndarray,
    expected: np.ndarray,
    what: str,
    diagnoses: list,
    temperature: float = 1.0,
) -> Check:
    # float32 inside passes: logits / temperature held in float32 are off by 6e-8 of their size,
    # which exp turns into a relative error of the probabilities (float32_rtol); 1e-5 for logits
    # of order one, more for logits near 200 at temperature 0.001 (0.05, where float32 inside is
    # off by 1.5%: every slip those cases catch is off by far more, nan, or keeps other tokens)
    scale = float(np.abs(np.asarray(logits, dtype=np.float64)).max(initial=0.0)) / temperature
    rtol = float32_rtol(scale)

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        probs = array_answer(outcome, logits.shape, kinds="f")
        if not np.isfinite(probs).all():
            raise CheckFailed(UNSTABLE + " (or every token was filtered out)")
        expect_close(
            probs,
            expected,
            rtol=rtol,
            atol=rtol * 1e-3,
            diagnoses=[(h, c) for h, c in diagnoses if c is not None],
        )
        expect_unchanged(outcome, (logits,))

    return Check(what, [Call(fn_args, kwargs)], judge)


def _judge_rejects(fn_args: tuple, kwargs: dict, what: str, hint: str) -> Check:
    def judge(outcomes: list[Outcome]) -> None:
        expect_raises(outcomes[0], "ValueError", hint)

    return Check(what, [Call(fn_args, kwargs)], judge)


# ---------------------------------------------------------------- temperature_probs


def _power_of_shifted(logits: np.ndarray, temperature: float) -> np.ndarray:
    """What exp(z - max z) ** (1 / t), renormalised, computes (the classic slip)."""
    z = np.asarray(logits, dtype=np.float64)
    with np.errstate(all="ignore"):
        e = np.exp(z - z.max()) ** (1 / temperature)
        return e / e.sum()


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


def temperature_probs_checks(rng: np.random.Generator) -> list[Check]:
    """The worked table, random logits and temperatures, logits of +-1000, tiny temperatures, bad ones."""
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


# ---------------------------------------------------------------- top_k_probs


def _top_k_check(logits: np.ndarray, k: int, temperature: float | None, what: str) -> Check:
    t = 1.0 if temperature is None else temperature
    expected = reference_top_k(logits, k, t)
    V = len(logits)
    probs = reference_temperature(logits, t)
    masked = np.where(expected > 0, probs, 0.0)
    diagnoses = [
        ("the kept probabilities do not sum to 1", masked),
        (
            "the kept set ignores the temperature: it was applied after filtering",
            reference_top_k(logits, k, 1.0) if t != 1 else None,
        ),
        (
            "that keeps the k least likely tokens",
            reference_top_k(-logits, k, t) if k < V else None,
        ),
        ("that keeps k + 1 tokens", reference_top_k(logits, k + 1, t) if k + 1 < V else None),
        ("that keeps k - 1 tokens", reference_top_k(logits, k - 1, t) if k > 1 else None),
    ]
    kwargs = {} if temperature is None else {"temperature": temperature}
    return _judge_probs((logits, k), kwargs, logits, expected, what, diagnoses, t)


def top_k_probs_checks(rng: np.random.Generator) -> list[Check]:
    """The worked example, random k and V, k >= V, temperature first, bad k and temperature."""
    checks = [
        _top_k_check(WORKED, 1, None, "the worked example, k = 1 (greedy)"),
        _top_k_check(WORKED, 2, None, "the worked example, k = 2"),
        _top_k_check(WORKED, 3, None, "k = V keeps everything"),
        _top_k_check(WORKED, 10, None, "k > V keeps everything"),
    ]
    for V, k, t in [(8, 3, None), (27, 5, 0.7), (12, 11, 2.0), (6, 2, 0.3)]:
        checks.append(
            _top_k_check(
                distinct_logits(rng, V),
                k,
                t,
                f"random logits, V={V}, k={k}, temperature {t or 1.0}",
            )
        )
    checks += [
        _top_k_check(
            distinct_logits(rng, 9) * 300, 3, None, "logits in the hundreds to thousands, k = 3"
        ),
        _top_k_check(distinct_logits(rng, 8) - 1000.0, 4, None, "every logit near -1000, k = 4"),
        _top_k_check(distinct_logits(rng, 10, scale=0.5), 3, 0.001, "temperature 0.001, k = 3"),
        _top_k_check(distinct_logits(rng, 10), 6, 1e4, "temperature 10,000, k = 6"),
        _top_k_check(distinct_logits(rng, 7).astype(np.float32), 2, 0.8, "float32 logits, k = 2"),
        _top_k_check(np.array([4, -1, 2, 7, 0]), 3, None, "integer logits, k = 3"),
        _top_k_check(
            200.0 + distinct_logits(rng, 9) * 1e-3,
            4,
            1e-3,
            "logits near 200 at temperature 0.001, k = 4",
        ),
        _top_k_check(
            np.sort(rng.uniform(-1000, 1000, 10)),
            7,
            1e3,
            "logits of +-1000 at temperature 1000, k = 7",
        ),
        _top_k_check(np.array([0.3]), 1, None, "a single logit (V = 1), k = 1"),
    ]
    checks.append(
        with_layout(
            _top_k_check(distinct_logits(rng, 8), 3, 0.9, "random logits, V=8, k=3"), "strided"
        )
    )
    checks += [
        _judge_rejects((WORKED, 0), {}, "k = 0 raises ValueError", "k must be at least 1"),
        _judge_rejects(
            (WORKED, 2),
            {"temperature": 0.0},
            "temperature 0 raises ValueError",
            "temperature must be > 0",
        ),
        _judge_rejects((WORKED, -2), {}, "k = -2 raises ValueError", "k must be at least 1"),
        _judge_rejects(
            (WORKED, 2),
            {"temperature": -0.5},
            "a negative temperature raises ValueError",
            "temperature must be > 0",
        ),
    ]
    return checks


# ---------------------------------------------------------------- top_p_probs


def clear_of_boundaries(logits: np.ndarray, p: float, temperature: float) -> float:
    """`p`, moved if needed so that no cumulative mass lies within 1e-6 of it (ties are left open)."""
    probs = np.sort(reference_temperature(logits, temperature))[::-1]
    before = np.concatenate([[0.0], np.cumsum(probs)[:-1]])
    while p < 1.0 and np.abs(before - p).min() < 1e-6:
        p = min(1.0, p + 0.01)
    return p


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


# ---------------------------------------------------------------- sample_next


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
                "array; work on a copy"
            )
        if report["global_state_moved"]:
            raise CheckFailed(
                "the global random state was used: draw only with the generator you are given"
            )
        if report["first"][: len(report["second"])] != report["second"]:
            raise CheckFailed(
                "the same generator seed gave different draws: draw only with the generator you are given"
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
                f"{n * expected[counts.argmax()]:.0f}: draw at random with the generator you are "
                "given (not the argmax, and not a new generator on every call), at the "
                "temperature given (applied once)"
            )
        if off.any():
            token = int(np.flatnonzero(off)[0])
            unfiltered_hint = (
                " (these look like the unfiltered probabilities: apply top-k, then top-p)"
                if not outside(unfiltered_ranges).any()
                else ""
            )
            raise CheckFailed(
                f"token {token} was drawn {counts[token]} times in {n}; expected about "
                f"{n * expected[token]:.0f}" + unfiltered_hint
            )

    call = Call(
        (logits, seed, draws, kwargs),
        probe="autograder.sandbox.guest.sampling_probes:sample_next_probe",
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
