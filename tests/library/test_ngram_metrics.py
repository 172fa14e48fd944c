"""proof_lm.ngram and proof_lm.metrics against loops, edge cases and the lectures' figure."""

import math
import warnings

import numpy as np
import pytest

from proof_lm.corpus import load_names
from proof_lm.metrics import (
    bigram_mean_nll,
    loss_summary,
    nats_to_bits,
    ngram_mean_nll,
    ppl,
)
from proof_lm.ngram import add_k_probs, bigram_count_table, ngram_counts, sample_names
from proof_lm.vocab import build_vocab


def loop_counts(names, stoi, n):
    counts = np.zeros((len(stoi),) * n, dtype=np.int64)
    for name in names:
        padded = "." * (n - 1) + name + "."
        for i in range(len(padded) - n + 1):
            counts[tuple(stoi[ch] for ch in padded[i : i + n])] += 1
    return counts


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_ngram_counts_match_a_loop(n):
    rng = np.random.default_rng(n)
    names = ["".join(rng.choice(list("abcde"), size=rng.integers(1, 7))) for _ in range(200)]
    stoi, _ = build_vocab(names)
    counts = ngram_counts(names, stoi, n)
    assert counts.dtype == np.int64
    assert np.array_equal(counts, loop_counts(names, stoi, n))
    assert counts.sum() == sum(len(name) + 1 for name in names)


def test_bigram_table_of_the_course_corpus():
    names = load_names()
    stoi, _ = build_vocab(names)
    counts = bigram_count_table(names, stoi)
    assert counts.shape == (27, 27)
    assert counts[0].sum() == counts[:, 0].sum() == len(names)
    assert ngram_counts([], stoi, 2).sum() == 0


def test_add_k_rows_sum_to_one_and_empty_rows_are_uniform():
    counts = np.array([[0, 0, 0], [1, 2, 1]])
    probs = add_k_probs(counts)
    assert np.allclose(probs, [[1 / 3] * 3, [0.25, 0.5, 0.25]])
    assert np.allclose(add_k_probs(counts, 1.0), [[1 / 3] * 3, [2 / 7, 3 / 7, 2 / 7]])
    assert np.array_equal(counts, [[0, 0, 0], [1, 2, 1]])
    with pytest.raises(ValueError, match="non-negative"):
        add_k_probs(counts, -1)


def test_sampling_is_reproducible_and_follows_the_table():
    names = load_names()
    stoi, itos = build_vocab(names)
    probs = add_k_probs(bigram_count_table(names, stoi), 1.0)
    first = sample_names(probs, itos, np.random.default_rng(0), count=200)
    assert first == sample_names(probs, itos, np.random.default_rng(0), count=200)
    assert first != sample_names(probs, itos, np.random.default_rng(1), count=200)
    deterministic = np.zeros((3, 3))
    deterministic[0, 1] = deterministic[1, 2] = deterministic[2, 0] = 1.0
    assert sample_names(deterministic, [".", "a", "b"], np.random.default_rng(5), 3) == ["ab"] * 3
    with pytest.raises(ValueError, match="Generator"):
        sample_names(probs, itos, 0)


def test_metrics():
    assert math.isclose(nats_to_bits(math.log(2)), 1.0)
    assert math.isclose(ppl(math.log(27)), 27)
    assert ppl(math.inf) == math.inf
    # '.' -> 'a' -> '.' for sure: 'a' never follows 'a'
    certain = np.array([[0.0, 1.0], [1.0, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a zero probability is +inf, with no divide warning
        assert bigram_mean_nll(certain, ["a"], {".": 0, "a": 1}) == 0.0
        assert bigram_mean_nll(certain, ["aa"], {".": 0, "a": 1}) == math.inf
    table = np.full((3, 3), 1 / 3)
    assert math.isclose(bigram_mean_nll(table, ["ab", "b"], {".": 0, "a": 1, "b": 2}), math.log(3))
    with pytest.raises(ValueError, match="at least one name"):
        bigram_mean_nll(table, [], {".": 0})


def test_lectures_add_one_bigram_nll(lectures_names):
    """The makemore lecture: add-one bigram model, fit and scored on all 32,033 names: 2.4546 nats."""
    names = load_names(lectures_names)
    stoi, _ = build_vocab(names)
    nll = bigram_mean_nll(add_k_probs(bigram_count_table(names, stoi), 1.0), names, stoi)
    assert round(nll, 4) == 2.4546


@pytest.mark.parametrize("n", [2, 3, 4])
def test_ngram_mean_nll_matches_a_loop(n):
    names, stoi = ["abba", "b", "aab"], {".": 0, "a": 1, "b": 2}
    probs = add_k_probs(ngram_counts(names[:2], stoi, n), k=0.5)
    total, count = 0.0, 0
    for name in names:
        padded = "." * (n - 1) + name + "."
        for i in range(len(padded) - n + 1):
            total -= math.log(probs[tuple(stoi[ch] for ch in padded[i : i + n])])
            count += 1
    assert math.isclose(ngram_mean_nll(probs, names, stoi), total / count)
    if n == 2:
        assert math.isclose(ngram_mean_nll(probs, names, stoi), bigram_mean_nll(probs, names, stoi))
    with pytest.raises(ValueError, match="at least one name"):
        ngram_mean_nll(probs, [], stoi)


def test_loss_summary_states_nats_bits_and_perplexity():
    assert loss_summary(math.log(8)) == "2.0794 nats = 3.000 bits, perplexity 8.00"
    assert loss_summary(math.inf).endswith("perplexity inf")
