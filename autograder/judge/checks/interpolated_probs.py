"""Hidden checks for chapter 01's challenge: interpolated_probs (a bigram interpolated with the unigram).

The reference loops over Python floats: P(b | a) = lam * c(a, b) / c(a) + (1 - lam) * u(b), where
u(b) is the share of bigrams whose next character is b; a row with no counts is u itself.
"""

import math

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.cases import alphabet_vocab, random_words
from autograder.judge.declaration import Exercise
from autograder.judge.expect import array_answer, expect_close, expect_raises, expect_unchanged
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="interpolated_probs",
    chapter="01_bigram_counting",
    points=2,
    extra=True,
)


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


def _counts(rng: np.random.Generator, V: int, empty_rows: int = 0) -> np.ndarray:
    """Random int64 counts with many zeros; `empty_rows` rows (never all) have no counts at all."""
    counts = rng.integers(0, 6, size=(V, V)) * (rng.random((V, V)) < 0.6)
    counts[0, rng.integers(1, V)] += 1  # never an all-zero table
    for a in rng.choice(np.arange(1, V), size=empty_rows, replace=False):
        counts[a] = 0
    return counts.astype(np.int64)


def _diagnoses(counts: np.ndarray, lam: float) -> list[tuple[str, object]]:
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
            "lam weighs the bigram estimate and 1 - lam the unigram; the two are swapped",
            reference_interpolated(counts, 1 - lam),
        ),
        (
            "that interpolates with the uniform distribution, not the unigram one",
            uniform_mix,
        ),
        (
            "a row with no counts does not sum to 1: it has no bigram estimate (what is left "
            "of the interpolation?)",
            no_fallback if (rows == 0).any() and lam > 0 else None,
        ),
        ("lam was ignored (that is the bigram estimate alone)", ml if lam != 1 else None),
    ]


def _probs_check(counts: np.ndarray, lam: float, what: str) -> Check:
    expected = reference_interpolated(counts, lam)

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        probs = array_answer(outcome, counts.shape, kinds="f")
        if np.isnan(probs).any():
            raise CheckFailed(
                "got nan: a row with no counts divides 0 by 0 (what does the contract give it?)"
            )
        expect_close(probs, expected, rtol=1e-9, atol=1e-12, diagnoses=_diagnoses(counts, lam))
        expect_unchanged(outcome, (counts, lam))

    return Check(what, [Call((counts, lam))], judge)


def _rejects(counts: np.ndarray, lam: float, what: str) -> Check:
    def judge(outcomes: list[Outcome]) -> None:
        expect_raises(outcomes[0], "ValueError", "lam must lie in [0, 1]")

    return Check(what, [Call((counts, lam))], judge)


def interpolated_probs_checks(rng: np.random.Generator) -> list[Check]:
    """Real bigram counts, random tables with empty rows, lam at 0 and 1, bad lam, no modification."""
    stoi = alphabet_vocab()
    real = np.zeros((len(stoi), len(stoi)), dtype=np.int64)
    for word in random_words(rng, stoi, 60):
        for a, b in zip("." + word, word + ".", strict=True):
            real[stoi[a], stoi[b]] += 1
    checks = [
        _probs_check(real, 0.8, "counts of 60 random words, lam 0.8"),
        _probs_check(real, float(rng.uniform(0.05, 0.95)), "counts of random words, random lam"),
    ]
    for V, empty in [(5, 1), (9, 3), (27, 6)]:
        lam = float(rng.uniform(0.1, 0.9))
        checks.append(
            _probs_check(
                _counts(rng, V, empty), lam, f"V={V} with {empty} empty row(s), lam {lam:.3f}"
            )
        )
    checks += [
        _probs_check(_counts(rng, 6, 2), 1.0, "lam 1: the bigram estimate (empty rows: unigram)"),
        _probs_check(_counts(rng, 6, 1), 0.0, "lam 0: every row is the unigram distribution"),
        _probs_check(_counts(rng, 4, 0).astype(np.float64), 0.5, "float counts are accepted too"),
        _rejects(_counts(rng, 4), 1.5, "lam > 1 raises ValueError"),
        _rejects(_counts(rng, 4), -0.1, "lam < 0 raises ValueError"),
    ]
    return checks
