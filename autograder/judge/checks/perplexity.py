"""Hidden checks for chapter 01's `perplexity`: the worked example, uniform 1/27, random probabilities, a zero, one certain token, underflow."""

import math

import numpy as np

from autograder.judge.check import Check, CheckFailed
from autograder.judge.checks.layouts import with_layout
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    expect_close,
    expect_unchanged,
    number_answer,
)
from autograder.sandbox.guest.protocol import Call, Outcome

EXERCISE = Exercise(
    name="perplexity",
    chapter="01_bigram_counting",
    points=1,
    kind="derive",
    library=("metrics:ppl", "metrics:loss_summary"),
)


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
