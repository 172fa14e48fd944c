"""Hidden checks for chapter 05's `top_k_probs`: the worked example, random k and V, k >= V, ties at and above the cut in any order, near ties, temperature first, bad k and temperature."""

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.layouts import with_layout
from autograder.judge.checks.sampling_shared import (
    UNSTABLE,
    WORKED,
    _judge_probs,
    _judge_rejects,
    distinct_logits,
    reference_temperature,
    reference_top_k,
)
from autograder.judge.declaration import Exercise
from autograder.judge.expect import array_answer, expect_close, expect_unchanged
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="top_k_probs",
    chapter="05_sampling",
    points=2,
    library=("sampling:filter_probs",),
)


def _by_distinct_values(logits: np.ndarray, k: int, t: float) -> np.ndarray:
    """Top-k misread: every token among the k largest distinct probabilities, renormalised."""
    probs = reference_temperature(logits, t)
    levels = sorted(set(probs.tolist()), reverse=True)
    kept = np.where(probs >= levels[min(k, len(levels)) - 1], probs, 0.0)
    return kept / kept.sum()


# equally likely tokens above the cut, counted as one of the k: more than k tokens kept
DISTINCT = (
    "that keeps the tokens of the k largest distinct probabilities: equally likely tokens above "
    "the k-th place took one of the k places between them, and more than k tokens were kept"
)


def _top_k_check(
    logits: np.ndarray,
    k: int,
    temperature: float | None,
    what: str,
    also: tuple[tuple[str, np.ndarray], ...] = (),
) -> Check:
    """`also`: diagnoses this case was made for, named before the general ones."""
    t = 1.0 if temperature is None else temperature
    expected = reference_top_k(logits, k, t)
    V = len(logits)
    probs = reference_temperature(logits, t)
    masked = np.where(expected > 0, probs, 0.0)
    diagnoses = [
        *also,
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
        (DISTINCT, _by_distinct_values(logits, k, t)),
    ]
    kwargs = {} if temperature is None else {"temperature": temperature}
    return _judge_probs((logits, k), kwargs, logits, expected, what, diagnoses, t)


ORDER_DEPENDENT = (
    "the result depends on the order of the vocabulary: the same logits listed in another order "
    "kept other tokens (here equally likely tokens meet at the k-th place)"
)


def _tie_check(
    logits: np.ndarray, k: int, temperature: float | None, what: str, rng: np.random.Generator
) -> Check:
    """Logits with equal values at or above the k-th place, given in four orders."""
    t = 1.0 if temperature is None else temperature
    expected = reference_top_k(logits, k, t)
    probs = reference_temperature(logits, t)
    above = np.where(probs > np.sort(probs)[::-1][k - 1], probs, 0.0)
    diagnoses = [
        ("that keeps fewer than k tokens", above / above.sum() if above.any() else None),
        (DISTINCT, _by_distinct_values(logits, k, t)),
    ]
    # listed as given, with each group of equal tokens moved round by one place (the same array:
    # any answer that keeps some of a group and not all depends on the order), reversed, shuffled
    rotated = np.arange(len(logits))
    for value in np.unique(probs):
        tied = np.flatnonzero(probs == value)
        rotated[tied] = np.roll(tied, 1)
    perms = [np.arange(len(logits)), rotated, rotated[::-1], rng.permutation(len(logits))]
    kwargs = {} if temperature is None else {"temperature": temperature}

    def judge(outcomes: list[Outcome]) -> None:
        answers = [array_answer(outcome, logits.shape, kinds="f") for outcome in outcomes]
        if not all(np.isfinite(answer).all() for answer in answers):
            raise CheckFailed(UNSTABLE + " (or every token was filtered out)")
        kept = [np.empty(len(logits), dtype=bool) for _ in perms]
        for where, perm, answer in zip(kept, perms, answers, strict=True):
            where[perm] = answer > 0  # back in the order first given
        if any(not np.array_equal(kept[0], other) for other in kept[1:]):
            raise CheckFailed(ORDER_DEPENDENT)
        for perm, answer in zip(perms, answers, strict=True):
            listed = [(hint, None if c is None else c[perm]) for hint, c in diagnoses]
            expect_close(answer, expected[perm], diagnoses=listed, reveal=False)
        expect_unchanged(outcomes[0], (logits,))

    calls = [Call((logits[perm], k), kwargs) for perm in perms]
    return Check(what, calls, judge)


def _tied_at_cut(rng: np.random.Generator, V: int) -> tuple[np.ndarray, int]:
    """Integer-valued logits and a k whose k-th and (k+1)-th largest are equal."""
    while True:
        logits = rng.integers(-3, 4, V).astype(np.float64)
        ranked = np.sort(logits)[::-1]
        ties = [k for k in range(1, V) if ranked[k - 1] == ranked[k]]
        if ties and len(set(logits.tolist())) > 2:
            return logits, int(rng.choice(ties))


def _tied_above_cut(rng: np.random.Generator, V: int) -> tuple[np.ndarray, int]:
    """Integer-valued logits and a k whose k largest hold equal values, the k-th not tied below."""
    while True:
        logits = rng.integers(-3, 4, V).astype(np.float64)
        ranked = np.sort(logits)[::-1]
        ties = [k for k in range(2, V) if ranked[k - 1] > ranked[k] and len(set(ranked[:k])) < k]
        if ties:
            return logits, int(rng.choice(ties))


NEAR_TIE = (
    "that keeps a token a millionth less likely than the k-th as if it tied: a tie is an equal "
    "probability"
)


def _near_tie_check(logits: np.ndarray, k: int, what: str) -> Check:
    """Logits whose (k+1)-th largest is 1e-6 below the k-th (far above float32's rounding, below
    np.isclose's tolerance): the answer keeps exactly k tokens."""
    ranked = np.sort(logits)[::-1]
    if not 0 < ranked[k - 1] - ranked[k] < 1e-5 or len(set(ranked.tolist())) < len(logits):
        raise AssertionError("a near tie is k-th and (k+1)-th apart by a hair, no tie elsewhere")
    near = (NEAR_TIE, reference_top_k(logits, k + 1))
    return _top_k_check(logits, k, None, what, also=(near,))


def _near_tie_at_cut(rng: np.random.Generator, V: int) -> tuple[np.ndarray, int]:
    """Logits spaced 0.3 apart in a random order, the (k+1)-th moved to 1e-6 below the k-th."""
    logits = rng.permutation(V) * 0.3 - 0.15 * V
    k = int(rng.integers(2, V - 1))
    order = np.argsort(-logits)
    logits[order[k]] = logits[order[k - 1]] - 1e-6
    return logits, k


def top_k_probs_checks(rng: np.random.Generator) -> list[Check]:
    """The worked example, random k and V, k >= V, ties at and above the cut in any order, near
    ties, temperature first, bad k and temperature."""
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
        _tie_check(
            np.array([2.0, 1.0, 1.0, 0.0]), 2, None, "two equal logits at the cut, k = 2", rng
        ),
        _tie_check(np.array([1.0, 1.0, -0.5]), 1, None, "two equal favourites, k = 1", rng),
        _tie_check(np.zeros(5), 2, None, "five equal logits, k = 2", rng),
    ]
    for V, t in [(9, None), (12, 0.5)]:
        logits, k = _tied_at_cut(rng, V)
        checks.append(
            _tie_check(logits, k, t, f"random logits with ties at the cut, V={V}, k={k}", rng)
        )
    # equal logits above the cut, each one of the k: (2, 2, 1, 0) at k = 2 keeps two tokens
    for logits, k, what in [
        ([2.0, 2.0, 1.0, 0.0], 2, "two equal favourites, k = 2"),
        ([0.0, 2.0, 1.0, 2.0], 2, "two equal favourites among four, k = 2"),
        ([0.5, 3.0, -1.0, 3.0, 1.5, 3.0, 2.0, -2.0], 5, "three equal favourites, k = 5"),
    ]:
        checks.append(_tie_check(np.array(logits), k, None, what, rng))
    logits, k = _tied_above_cut(rng, 10)
    checks.append(_tie_check(logits, k, 0.8, f"random logits with ties above the cut, k={k}", rng))
    # a probability a hair below the k-th is no tie
    checks.append(_near_tie_check(np.array([1.0, 1.0 - 1e-6, 0.0]), 1, "a near tie, k = 1"))
    logits, k = _near_tie_at_cut(rng, 30)
    checks.append(_near_tie_check(logits, k, f"a near tie at the cut, V=30, k={k}"))
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
