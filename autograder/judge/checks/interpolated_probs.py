"""Hidden checks for chapter 01's challenge: interpolated_probs (the mixing weight that maximises the
held-out likelihood, derived).

P_lam(b | a) = lam * c(a, b) / c(a) + (1 - lam) * u(b), u(b) the share of bigrams whose next
character is b, a row with no counts u itself; lam maximises sum H(a, b) log P_lam(b | a) over
[0, 1]. The log-likelihood is concave in lam (a sum of logs of functions linear in lam), so its
derivative decreases: the maximiser is 0 or 1 when the derivative keeps one sign, else its root.

Graded to 1e-10: near the maximum the log-likelihood changes by less than its rounding, so a search
that compares likelihoods computed as usual stops short (golden section: 4e-10 to 2e-8 away on
the corpus's cases, a grid of 10,001 points 5e-6 to 4e-5); a root of the derivative, Newton's
method or EM with the ends settled reach 1e-15. A red team's golden section that computes each
difference of two likelihoods accurately (a sum of log1p terms) passes: that is numerical analysis
of the objective, not a search over its rounded values.
"""

import math

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.bigram_counting_shared import reference_counts
from autograder.judge.checks.cases import alphabet_vocab
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    as_array,
    as_number,
    expect_close,
    expect_raises,
    expect_unchanged,
    tuple_answer,
)
from autograder.sandbox.guest.protocol import Call, Outcome
from proof_lm.corpus import load_names

EXERCISE = Exercise(
    name="interpolated_probs",
    chapter="01_bigram_counting",
    points=2,
    extra=True,
    kind="derive",
)

LAM_TOLERANCE = 1e-10


def reference_interpolated(counts: np.ndarray, lam: float, unigram_axis: int = 0) -> np.ndarray:
    """lam * (maximum-likelihood row) + (1 - lam) * unigram of the next character, by loops."""
    V = counts.shape[0]
    rows = [[float(counts[a, b]) for b in range(V)] for a in range(V)]
    total = math.fsum(math.fsum(row) for row in rows)
    if unigram_axis == 0:  # column sums: how often each character comes next
        unigram = [math.fsum(rows[a][b] for a in range(V)) / total for b in range(V)]
    else:  # a plausible slip: row sums, how often each character comes first
        unigram = [math.fsum(rows[b]) / total for b in range(V)]
    out = np.zeros((V, V))
    for a in range(V):
        row_total = math.fsum(rows[a])
        for b in range(V):
            if row_total == 0:
                out[a, b] = unigram[b]
            else:
                out[a, b] = lam * rows[a][b] / row_total + (1 - lam) * unigram[b]
    return out


def best_lambda(counts: np.ndarray, held_out: np.ndarray, empty_rows_mix: bool = False) -> float:
    """The maximiser over [0, 1] of the held-out log-likelihood, by bisection on its derivative.

    `empty_rows_mix`: a plausible slip, scoring a row with no counts as lam * 0 + (1 - lam) * u.
    """
    counts, held_out = np.asarray(counts, dtype=np.float64), np.asarray(held_out, dtype=np.float64)
    unigram = counts.sum(axis=0) / counts.sum()
    rows = counts.sum(axis=1, keepdims=True)
    ml = np.divide(counts, rows, out=np.zeros_like(counts), where=rows > 0)
    used = (held_out > 0) & ((rows > 0) | empty_rows_mix)
    m, u, h = ml[used], np.broadcast_to(unigram, counts.shape)[used], held_out[used]

    def slope(lam: float) -> float:
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = h * (m - u) / (lam * m + (1 - lam) * u)
        return math.fsum(np.where(np.isnan(terms), -np.inf, terms).tolist())

    if slope(0.0) <= 0:
        return 0.0
    if slope(1.0) >= 0:
        return 1.0
    low, high = 0.0, 1.0
    while True:
        middle = (low + high) / 2
        if middle in (low, high):
            return middle
        low, high = (middle, high) if slope(middle) > 0 else (low, middle)


def _table_diagnoses(counts: np.ndarray, lam: float) -> list[tuple[str, object]]:
    V = counts.shape[0]
    rows = counts.sum(axis=1, keepdims=True).astype(float)
    ml = np.divide(counts, rows, out=np.zeros((V, V)), where=rows > 0)
    uniform_mix = lam * ml + (1 - lam) / V
    uniform_mix[rows[:, 0] == 0] = 1.0 / V
    unigram = counts.sum(axis=0) / counts.sum()
    no_fallback = lam * ml + (1 - lam) * unigram  # an empty row keeps only (1 - lam) u
    return [
        (
            "the unigram distribution is over the wrong character: it totals the counts of "
            "each previous character, not of each next one",
            reference_interpolated(counts, lam, unigram_axis=1),
        ),
        (
            "the table does not match the lam returned beside it: lam weighs the bigram "
            "estimate and 1 - lam the unigram, and the two are swapped",
            reference_interpolated(counts, 1 - lam),
        ),
        ("that interpolates with the uniform distribution, not the unigram one", uniform_mix),
        (
            "a row with no counts does not sum to 1: it has no bigram estimate (what is left "
            "of the interpolation?)",
            no_fallback if (rows == 0).any() and lam > 0 else None,
        ),
    ]


def _lam_hint(lam: float, expected: float, counts: np.ndarray, held_out: np.ndarray) -> str:
    empty = best_lambda(counts, held_out, empty_rows_mix=True)
    if expected != empty and abs(lam - empty) <= LAM_TOLERANCE:
        return (
            f"lam = {lam:.12f} maximises a likelihood in which the held-out bigrams after a "
            "symbol with no training counts depend on lam: the model gives such a row u, "
            "whatever lam is"
        )
    gap = abs(lam - expected)
    if expected in (0.0, 1.0) and gap >= 1e-7:
        return (
            f"got lam = {lam:.12f}; on these counts the held-out log-likelihood is largest at the "
            f"end lam = {expected:g} itself (what is its slope there?)"
        )
    if gap < 1e-3:
        return (
            f"lam is {gap:.1e} from the maximiser, and the contract asks for 1e-10: near its "
            "maximum the held-out log-likelihood is flat (its values there round alike, and "
            "steps towards it shrink slowly), so a rule that stops when values or steps change "
            "little stops short"
        )
    return f"got lam = {lam:.12f}, expected {expected:.12f} (the held-out likelihood's maximiser)"


def _check(counts: np.ndarray, held_out: np.ndarray, what: str) -> Check:
    expected = best_lambda(counts, held_out)

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        probs, lam = tuple_answer(outcome, ["probs", "lam"])
        lam = as_number(lam)
        if not 0.0 <= lam <= 1.0:
            raise CheckFailed(
                f"lam = {lam!r} lies outside [0, 1], where the two-stage draw is defined"
            )
        probs = as_array(probs, counts.shape, kinds="f")
        if np.isnan(probs).any():
            raise CheckFailed(
                "got nan: a row with no counts divides 0 by 0 (what does the contract give it?)"
            )
        expect_close(
            probs,
            reference_interpolated(counts, lam),
            rtol=1e-9,
            atol=1e-12,
            diagnoses=_table_diagnoses(counts, lam),
        )
        if abs(lam - expected) > LAM_TOLERANCE:
            raise CheckFailed(_lam_hint(lam, expected, counts, held_out))
        expect_unchanged(outcome, (counts, held_out))

    return Check(what, [Call((counts, held_out))], judge)


def _rejects(counts: np.ndarray, held_out: np.ndarray, what: str, hint: str) -> Check:
    def judge(outcomes: list[Outcome]) -> None:
        expect_raises(outcomes[0], "ValueError", hint)

    return Check(what, [Call((counts, held_out))], judge)


def _counts(rng: np.random.Generator, V: int, empty_rows: int = 0) -> np.ndarray:
    """Random int64 counts with many zeros, every column used; `empty_rows` rows have no counts."""
    counts = rng.integers(0, 6, size=(V, V)) * (rng.random((V, V)) < 0.6)
    counts[0] += 1  # every next symbol occurs: u > 0 everywhere
    for a in rng.choice(np.arange(1, V), size=empty_rows, replace=False):
        counts[a] = 0
    return counts.astype(np.int64)


def interpolated_probs_checks(rng: np.random.Generator) -> list[Check]:
    """Corpus counts of several sizes, random tables with empty rows, both ends of [0, 1], bad input."""
    stoi = alphabet_vocab()
    names = load_names()
    order = rng.permutation(len(names))
    checks = []
    for size, held in ((300, 300), (3000, 1000), (24000, 3000)):
        train = [names[i] for i in order[:size]]
        dev = [names[i] for i in order[size : size + held]]
        counts, held_out = reference_counts(train, stoi), reference_counts(dev, stoi)  # no PyTorch
        held_out[:, counts.sum(axis=0) == 0] = 0  # a letter never drawn in training: ValueError
        checks.append(_check(counts, held_out, f"bigrams of {size} names, held-out {held} others"))
    for V, empty in [(5, 1), (9, 3), (27, 6)]:
        counts, held_out = _counts(rng, V, empty), _counts(rng, V)
        checks.append(_check(counts, held_out, f"V={V} with {empty} empty training row(s)"))
    counts = _counts(rng, 6, 1)
    checks += [
        _check(counts, counts.copy(), "held-out counts equal to the training counts"),
        _check(
            counts,
            np.tile(counts.sum(axis=0), (6, 1)) * (counts == 0),
            "held-out bigrams the training rows never saw",
        ),
        _check(_counts(rng, 4).astype(np.float64), _counts(rng, 4), "float counts are accepted"),
        _rejects(
            _counts(rng, 4),
            np.zeros((4, 4), dtype=np.int64),
            "held-out counts all 0 raise ValueError",
            "held_out has no counts: no likelihood to maximise",
        ),
        _rejects(
            _counts(rng, 4),
            _counts(rng, 5),
            "held-out counts of another shape raise ValueError",
            "counts and held_out must have the same (V, V) shape",
        ),
    ]
    blind = _counts(rng, 5)
    blind[:, 3] = 0  # symbol 3 never comes next in training
    seen_later = np.zeros((5, 5), dtype=np.int64)
    seen_later[1, 3] = seen_later[2, 2] = 1
    checks.append(
        _rejects(
            blind,
            seen_later,
            "a held-out bigram impossible under every lam raises ValueError",
            "a held-out bigram has probability 0 whatever lam is",
        )
    )
    return checks
