"""Hidden checks for chapter 01's `mean_nll`: a tiny worked table, random tables and vocabularies, zeros that matter and zeros that don't."""

import itertools
import math

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.bigram_counting_shared import reference_counts
from autograder.judge.checks.cases import (
    alphabet_vocab,
    random_prob_table,
    random_vocab,
    random_words,
)
from autograder.judge.checks.layouts import with_layout
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    expect_close,
    expect_unchanged,
    number_answer,
)
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="mean_nll",
    chapter="01_bigram_counting",
    points=2,
    kind="debug",
    library=("metrics:bigram_mean_nll", "metrics:ngram_mean_nll", "metrics:_mean_negative_log"),
)


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
