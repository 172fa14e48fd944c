"""Hidden checks for chapter 01: bigram_counts, bigram_probs, mean_nll, perplexity.

References here are plain loops, independent of the vectorised code in proof_lm.
"""

import itertools
import math

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.cases import (
    alphabet_vocab,
    random_prob_table,
    random_vocab,
    random_words,
)
from autograder.judge.checks.layouts import with_layout
from autograder.judge.expect import (
    array_answer,
    expect_close,
    expect_unchanged,
    number_answer,
    value_of,
)
from autograder.sandbox.guest.calls import Call, Outcome

# ---------------------------------------------------------------- bigram_counts


def reference_counts(
    words: list[str],
    stoi: dict[str, int],
    start: bool = True,
    end: bool = True,
    unique: bool = False,
) -> np.ndarray:
    """Bigram counts by a double loop; the flags build the classic wrong variants."""
    V = len(stoi)
    counts = np.zeros((V, V), dtype=np.int64)
    for word in words:
        chars = (["."] if start else []) + list(word) + (["."] if end else [])
        pairs = list(itertools.pairwise(chars))
        for a, b in set(pairs) if unique else pairs:
            counts[stoi[a], stoi[b]] += 1
    return counts


def _judge_counts(words: list[str], stoi: dict[str, int], what: str, note: str = "") -> Check:
    expected = reference_counts(words, stoi)
    V = len(stoi)
    diagnoses = [
        ("rows and columns are swapped: row = previous character, column = next", expected.T),
        (
            "the start token is missing: no bigram begins at the word boundary '.'",
            reference_counts(words, stoi, start=False),
        ),
        (
            "the end token is missing: no bigram ends at the word boundary '.'",
            reference_counts(words, stoi, end=False),
        ),
        (
            "the '.' boundary tokens are missing: a word's first and last letters are never paired with the boundary",
            reference_counts(words, stoi, start=False, end=False),
        ),
        (
            "each bigram is counted once per word: a word that repeats a bigram counts it once",
            reference_counts(words, stoi, unique=True),
        ),
    ]
    if V == 27 and stoi != alphabet_vocab():
        diagnoses.append(
            (
                "ids were computed from the letters, not looked up in the vocabulary stoi",
                reference_counts(words, alphabet_vocab()),
            )
        )

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        value = value_of(outcome)
        if isinstance(value, np.ndarray) and value.ndim == 2 and value.shape != (V, V):
            raise CheckFailed(
                f"returned shape {value.shape}; expected ({V}, {V}) with V = len(stoi), "
                "including characters that never occur"
            )
        counts = array_answer(outcome, (V, V), kinds="iuf")
        expect_close(counts, expected, rtol=0, atol=0, diagnoses=diagnoses, note=note)
        if counts.dtype != np.int64:
            raise CheckFailed(
                f"the counts are right but their dtype is {counts.dtype}; return np.int64"
            )
        expect_unchanged(outcome, (words, stoi))

    return Check(what, [Call((words, stoi))], judge)


def bigram_counts_checks(rng: np.random.Generator) -> list[Check]:
    """Worked example, the course alphabet, shuffled vocabularies, short and repeated words."""
    alphabet = alphabet_vocab()
    checks = [
        _judge_counts(["ab", "b"], {".": 0, "a": 1, "b": 2}, "the visible example 'ab', 'b'"),
        _judge_counts(["emma", "ava"], alphabet, "the words 'emma' and 'ava'"),
        _judge_counts(random_words(rng, alphabet, 400), alphabet, "400 random words over a-z"),
        _judge_counts(
            ["a", "a", "aa", "aaa", "b"],
            {".": 0, "a": 1, "b": 2},
            "one-letter and repeated-letter words",
        ),
        _judge_counts(
            ["ab", "ba"],
            {".": 0, "a": 1, "b": 2, "c": 3, "d": 4, "e": 5},
            "characters that never occur (they still get a row and a column)",
        ),
    ]
    for size in (3, 7, 12, 27):
        stoi = random_vocab(rng, size)
        checks.append(
            _judge_counts(
                random_words(rng, stoi, int(rng.integers(5, 120))),
                stoi,
                f"{size}-symbol vocabulary with shuffled ids",
                note=" (ids here are not alphabetical: look every id up in stoi)",
            )
        )
    return checks


# ---------------------------------------------------------------- bigram_probs


def reference_probs(counts: np.ndarray, k: float) -> np.ndarray:
    """Add-k rows by a loop; a row with total 0 becomes uniform."""
    V = counts.shape[1]
    probs = np.zeros(counts.shape, dtype=np.float64)
    for row in range(counts.shape[0]):
        total = float(sum(counts[row])) + k * V
        for col in range(V):
            probs[row, col] = (counts[row, col] + k) / total if total > 0 else 1.0 / V
    return probs


def _random_counts(rng: np.random.Generator, V: int, empty_rows: int) -> np.ndarray:
    counts = rng.integers(0, 50, size=(V, V)) * (rng.random((V, V)) < 0.6)
    counts[rng.choice(V, size=empty_rows, replace=False)] = 0
    counts[counts.sum(axis=1) == 0, :] = 0
    return counts.astype(np.int64)


def _judge_probs(
    counts: np.ndarray, k: float | None, what: str, keyword: bool = False, rtol: float = 1e-9
) -> Check:
    effective = 0.0 if k is None else k
    expected = reference_probs(counts, effective)
    c = counts.astype(np.float64)
    rows = c.sum(axis=1, keepdims=True)
    V = counts.shape[1]
    with np.errstate(all="ignore"):
        diagnoses = [
            (
                "each column sums to 1 instead of each row: normalised along the wrong axis",
                (c + effective) / (c + effective).sum(axis=0, keepdims=True),
            ),
            (
                f"k was ignored: the smoothing count k = {effective} changes nothing",
                reference_probs(counts, 0.0),
            ),
            (
                "the rows do not sum to 1: the denominator misses the k added to every column",
                (c + effective) / (rows + effective),
            ),
            (
                "the rows do not sum to 1: k was added after normalising",
                (c / rows + effective) / (c / rows + effective).sum(axis=1, keepdims=True),
            ),
            (
                "a row with no counts (and k = 0) came out all zeros: the contract makes it uniform",
                np.where(rows > 0, expected, 0.0),
            ),
            (
                "the rows are the counts themselves: the constraint that each row sums to 1 "
                "never entered the maximisation",
                c + effective,
            ),
        ]
    if k is None:
        call = Call((counts,))
    elif keyword:
        call = Call((counts,), {"k": k})
    else:
        call = Call((counts, k))

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        probs = array_answer(outcome, counts.shape, kinds="f")
        empty = (rows[:, 0] + effective * V) == 0
        if np.isnan(probs[empty]).any():
            raise CheckFailed(
                "a row with no counts and k = 0 gave nan (0/0): the contract makes it uniform"
            )
        with np.errstate(all="ignore"):
            sums_to_one = np.allclose(probs.astype(np.float64).sum(axis=1), 1.0, rtol=1e-6)
        note = (
            " (each row sums to 1 but is not the distribution that makes its own pairs, counts "
            "plus k, most likely)"
            if sums_to_one
            else " (the rows do not sum to 1: each row must be a distribution)"
        )
        expect_close(
            probs,
            expected,
            rtol=rtol,
            atol=rtol * 1e-3,
            diagnoses=diagnoses,
            note=note,
            reveal=False,  # on [[1, 3]] the expected row is the derivation's answer
        )
        expect_unchanged(outcome, (counts,))

    return Check(what, [call], judge)


def bigram_probs_checks(rng: np.random.Generator) -> list[Check]:
    """Plain rows, add-k for several k (positional, keyword, default), empty rows, inputs untouched.

    Counts come as int64, int32, float64 and float32 tables: whatever the dtype, the caller's
    table must be left as it was (a float64 table is where `np.asarray(counts, dtype=float)`
    followed by `+=` writes into the caller's array).
    """
    visible = np.array([[1, 3], [0, 0]], dtype=np.int64)
    checks = [
        _judge_probs(visible, None, "the visible example [[1, 3], [0, 0]], default k"),
        _judge_probs(visible, 1.0, "the visible example [[1, 3], [0, 0]], k = 1", keyword=True),
        _judge_probs(
            np.array([[0, 2, 2], [1, 1, 2], [0, 0, 0]], dtype=np.int64),
            None,
            "a 3x3 table with an empty row, default k",
        ),
        _judge_probs(np.array([[3, 1], [0, 4]], dtype=np.int64), 1.0, "a 2x2 table with k = 1"),
    ]
    for index, (V, k) in enumerate(
        [(5, 0.0), (27, 1.0), (11, 0.5), (30, 2.75), (8, 0.01), (27, 0.0)]
    ):
        counts = _random_counts(rng, V, empty_rows=int(rng.integers(1, 3)))
        checks.append(
            _judge_probs(
                counts, k, f"random {V}x{V} counts with empty rows, k = {k}", keyword=index % 2 == 1
            )
        )
    checks += [
        _judge_probs(
            np.array([[1.0, 3.0], [0.0, 0.0]]), None, "float64 counts [[1, 3], [0, 0]], default k"
        ),
        _judge_probs(
            np.array([[1.0, 3.0], [0.0, 0.0]]), 1.0, "float64 counts, k = 1", keyword=True
        ),
    ]
    for dtype, k, rtol in [(np.float64, 0.5, 1e-9), (np.float32, 1.0, 1e-5), (np.int32, 0.0, 1e-9)]:
        V = int(rng.integers(3, 28))
        counts = _random_counts(rng, V, empty_rows=1).astype(dtype)
        if dtype == np.float64:  # expected counts need not be whole numbers
            counts = counts * rng.uniform(0.5, 1.5, counts.shape)
        checks.append(
            _judge_probs(
                counts,
                k,
                f"random {V}x{V} {np.dtype(dtype).name} counts, k = {k} (left unmodified)",
                keyword=True,
                rtol=rtol,
            )
        )
    normalised = rng.dirichlet(np.ones(6), size=6)
    checks += [
        _judge_probs(normalised, None, "rows that already sum to 1, default k (a new array)"),
        _judge_probs(np.array([[0]]), None, "a 1x1 table of no counts (V = 1): uniform is [[1]]"),
        with_layout(
            _judge_probs(_random_counts(rng, 7, empty_rows=1), 0.5, "random 7x7 counts, k = 0.5"),
            "transposed",
        ),
        with_layout(
            _judge_probs(
                _random_counts(rng, 6, empty_rows=1).astype(np.float64), 0.0, "random 6x6 counts"
            ),
            "strided",
        ),
    ]
    return checks


# ---------------------------------------------------------------- mean_nll


def reference_mean_nll(
    probs: np.ndarray,
    words: list[str],
    stoi: dict[str, int],
    end: bool = True,
    per_word: bool = False,
    total: bool = False,
    log=math.log,
    transpose: bool = False,
    word_means: bool = False,
) -> float:
    """Mean -log p over every predicted character; the flags build the classic wrong variants."""
    nll, count, means = 0.0, 0, []
    for word in words:
        chars = ["."] + list(word) + (["."] if end else [])
        word_nll = 0.0
        for a, b in itertools.pairwise(chars):
            p = probs[stoi[b], stoi[a]] if transpose else probs[stoi[a], stoi[b]]
            if p == 0:
                return math.inf
            word_nll -= log(float(p))
            count += 1
        nll += word_nll
        means.append(word_nll / (len(chars) - 1))
    if word_means:
        return sum(means) / len(means)
    if total:
        return nll
    return nll / len(words) if per_word else nll / count


def _judge_mean_nll(probs: np.ndarray, words: list[str], stoi: dict[str, int], what: str) -> Check:
    expected = reference_mean_nll(probs, words, stoi)
    rtol = 1e-5 if probs.dtype == np.float32 else 1e-9
    diagnoses = [
        (
            "that is the total, not the mean over the predicted characters",
            reference_mean_nll(probs, words, stoi, total=True),
        ),
        (
            "that averages over words, not over the predicted characters (end token included)",
            reference_mean_nll(probs, words, stoi, per_word=True),
        ),
        (
            "that is the mean of each word's mean: a short word weighs as much as a long one, "
            "where each predicted character should weigh the same",
            reference_mean_nll(probs, words, stoi, word_means=True),
        ),
        (
            "the final '.' (end of word) is not scored: each word also predicts its end",
            reference_mean_nll(probs, words, stoi, end=False),
        ),
        (
            "that is in bits: the loss is in nats",
            reference_mean_nll(probs, words, stoi, log=math.log2),
        ),
        ("the sign is wrong: the loss is the mean of -log p", -expected),
        (
            "rows and columns are swapped: which index of probs is the previous character?",
            reference_mean_nll(probs, words, stoi, transpose=True),
        ),
    ]

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        value = number_answer(outcome)
        if math.isnan(value):
            raise CheckFailed("got nan; a probability of 0 must give inf (0 * log 0 or inf - inf?)")
        if math.isinf(expected) and value != math.inf:
            raise CheckFailed(
                f"some needed probability is 0, so the loss must be inf; got {value:.6g}"
            )
        expect_close(value, expected, rtol=rtol, atol=rtol * 1e-3, diagnoses=diagnoses)
        expect_unchanged(outcome, (probs, words, stoi))

    return Check(what, [Call((probs, words, stoi))], judge)


def mean_nll_checks(rng: np.random.Generator) -> list[Check]:
    """A tiny worked table, random tables and vocabularies, zeros that matter and zeros that don't."""
    tiny = np.array([[0.0, 0.5, 0.5], [0.25, 0.25, 0.5], [0.5, 0.5, 0.0]])
    stoi_ab = {".": 0, "a": 1, "b": 2}
    checks = [
        _judge_mean_nll(tiny, ["ab"], stoi_ab, "the visible example 'ab' (ln 2)"),
        _judge_mean_nll(tiny, ["b", "bb"], stoi_ab, "the visible example 'b', 'bb' (inf)"),
        _judge_mean_nll(tiny, ["ab", "a"], stoi_ab, "a 3x3 table and the words 'ab', 'a'"),
    ]
    alphabet = alphabet_vocab()
    for size, count in [(27, 300), (6, 40), (13, 1)]:
        stoi = alphabet if size == 27 else random_vocab(rng, size)
        checks.append(
            _judge_mean_nll(
                random_prob_table(rng, size),
                random_words(rng, stoi, count),
                stoi,
                f"a random {size}x{size} table and {count} words",
            )
        )
    stoi = random_vocab(rng, 9)
    words = random_words(rng, stoi, 30)
    probs = random_prob_table(rng, 9)
    used = reference_counts(words, stoi) > 0
    unused_zero = np.where(used, probs, 0.0)
    unused_zero /= unused_zero.sum(axis=1, keepdims=True)
    checks.append(
        _judge_mean_nll(
            unused_zero, words, stoi, "zeros only where no word needs them (finite loss)"
        )
    )
    needed = probs.copy()
    row, col = np.argwhere(used)[len(np.argwhere(used)) // 2]
    needed[row, col] = 0.0
    needed[row] /= needed[row].sum()
    checks.append(
        _judge_mean_nll(needed, words, stoi, "a needed probability of 0 (loss inf, no exception)")
    )
    stoi = random_vocab(rng, 8)
    checks.append(
        _judge_mean_nll(
            random_prob_table(rng, 8).astype(np.float32),
            random_words(rng, stoi, 25),
            stoi,
            "a float32 table (left unmodified)",
        )
    )
    stoi = random_vocab(rng, 7)
    checks.append(
        with_layout(
            _judge_mean_nll(
                random_prob_table(rng, 7), random_words(rng, stoi, 20), stoi, "a random 7x7 table"
            ),
            "transposed",
        )
    )
    return checks


# ---------------------------------------------------------------- perplexity


def reference_perplexity(token_probs: np.ndarray) -> float:
    """exp of the mean -ln p by a loop; inf if any p is 0."""
    total = 0.0
    for p in token_probs.ravel():
        if p == 0:
            return math.inf
        total -= math.log(float(p))
    return math.exp(total / token_probs.size)


def _judge_perplexity(token_probs: np.ndarray, what: str) -> Check:
    expected = reference_perplexity(token_probs)
    rtol = 1e-5 if token_probs.dtype == np.float32 else 1e-9
    with np.errstate(all="ignore"):
        logs = -np.log(token_probs)
        diagnoses = [
            ("that is the mean negative log-likelihood itself, not the perplexity", logs.mean()),
            ("that grows with the number of tokens: the exp of a total", np.exp(logs.sum())),
            (
                "that is 1/perplexity: the geometric mean of the probabilities, not the number "
                "of equally likely choices",
                np.exp(-logs.mean()),
            ),
            ("the base of the power is not the base of the logarithm", 2 ** logs.mean()),
            ("the base of the power is not the base of the logarithm", 10 ** logs.mean()),
            (
                "the base of the power is not the base of the logarithm",
                np.exp(-np.log10(token_probs).mean()),
            ),
        ]

    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        value = number_answer(outcome)
        if math.isnan(value):
            raise CheckFailed("got nan; a probability of 0 must give inf")
        if math.isinf(value) and math.isfinite(expected):
            raise CheckFailed(
                "got inf for nonzero probabilities: a product of many probabilities underflows "
                "to 0 in floating point (and a product of their inverses overflows)"
            )
        expect_close(value, expected, rtol=rtol, atol=rtol * 1e-3, diagnoses=diagnoses)
        expect_unchanged(outcome, (token_probs,))

    return Check(what, [Call((token_probs,))], judge)


def perplexity_checks(rng: np.random.Generator) -> list[Check]:
    """The worked example, uniform 1/27, random probabilities, a zero, one certain token, underflow."""
    return [
        _judge_perplexity(
            np.array([0.05, 0.01, 0.20]), "the worked example 0.05, 0.01, 0.20 (about 21.5)"
        ),
        _judge_perplexity(np.full(10, 1 / 27), "ten uniform predictions over 27 symbols (27)"),
        _judge_perplexity(np.array([1.0]), "a single certain prediction (1)"),
        _judge_perplexity(rng.uniform(0.01, 1.0, size=17), "17 random probabilities"),
        _judge_perplexity(rng.uniform(0.2, 0.9, size=3), "3 random probabilities"),
        _judge_perplexity(np.array([0.5, 0.0]), "the visible example 0.5, 0.0 (inf)"),
        _judge_perplexity(
            np.array([0.5, 0.25, 0.0]), "a probability of 0 last (inf, no exception)"
        ),
        _judge_perplexity(
            rng.uniform(1e-4, 2e-3, size=5000), "5000 small probabilities (no underflow)"
        ),
        _judge_perplexity(np.full(400, 0.1), "400 probabilities of 0.1 (their product underflows)"),
        _judge_perplexity(
            rng.uniform(0.05, 1.0, size=40).astype(np.float32), "float32 probabilities"
        ),
        with_layout(
            _judge_perplexity(rng.uniform(0.05, 1.0, size=9), "9 random probabilities"), "strided"
        ),
    ]
