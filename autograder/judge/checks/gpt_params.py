"""Hidden checks for chapter 07's `gpt_params`: the chapter's model, one layer, one head, and random configurations, against TinyGPT."""

import itertools
from fractions import Fraction

import numpy as np
import torch

from autograder.judge.check import Check
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    exact_count,
)
from autograder.sandbox.guest.protocol import Call
from proof_lm.gpt import TinyGPT

EXERCISE = Exercise(
    name="gpt_params",
    chapter="07_attention",
    points=1,
    kind="derive",
    library=("gpt:TinyGPT",),
)


def built_count(V: int, T: int, C: int, n_layers: int, n_heads: int) -> int:
    """The number of parameters of proof_lm's TinyGPT built here (torch's global generator is left
    as it was)."""
    with torch.random.fork_rng(devices=[]):
        model = TinyGPT(V, T, C, n_layers, n_heads)
    return sum(p.numel() for p in model.parameters())


def library_count(V: int, T: int, C: int, n_layers: int, n_heads: int) -> int:
    """The number of parameters of proof_lm's TinyGPT, counted from the module itself. A model too
    large to build is counted by interpolating the counts of small ones built with the same number
    of heads: a count is linear in V, T and n_layers and quadratic in C."""
    if (V + T) * C + 12 * n_layers * C * C <= 5_000_000:
        return built_count(V, T, C, n_layers, n_heads)
    nodes = [(2, 3), (1, 2), (n_heads, 2 * n_heads, 3 * n_heads), (1, 2)]  # V, T, C, n_layers
    point = (V, T, C, n_layers)
    total = Fraction(0)
    for corner in itertools.product(*(range(len(n)) for n in nodes)):
        weight = Fraction(1)  # the product of the Lagrange basis polynomials at `point`
        for axis, j in enumerate(corner):
            xs = nodes[axis]
            for m, x in enumerate(xs):
                if m != j:
                    weight *= Fraction(point[axis] - x, xs[j] - x)
        args = [nodes[axis][j] for axis, j in enumerate(corner)]
        total += weight * built_count(*args, n_heads)
    assert total.denominator == 1
    return int(total)


def _judge_gpt_params(V: int, T: int, C: int, L: int, H: int, what: str) -> Check:
    expected = library_count(V, T, C, L, H)
    block = 12 * C * C + 9 * C
    diagnoses = [
        (
            "short by exactly the position embeddings: a learned vector for every position",
            expected - T * C,
        ),
        (
            "short by exactly the blocks' two layer norms: each scales and shifts every channel",
            expected - L * 4 * C,
        ),
        ("short by exactly the final layer norm after the last block", expected - 2 * C),
        (
            "short by exactly the output layer's weights, as if tied to the token embedding: this model's has weights of its own",
            expected - C * V,
        ),
        ("short by exactly the output layer's biases", expected - V),
        (
            "over by exactly biases on the attention projections, which have no biases here",
            expected + L * 4 * C,
        ),
        ("short by exactly the MLP's biases: both of its layers have them", expected - L * 5 * C),
        (
            "the MLP's hidden layer is counted C wide: what width does the description give it?",
            expected - L * 6 * C * C - L * 3 * C,
        ),
        (
            "short by one C x C projection per block: how many projections does the description give "
            "the attention?",
            expected - L * C * C,
        ),
        (
            "the count grows with the number of heads, and the model's does not: the heads split the projections' columns",
            expected + (H - 1) * L * 4 * C * C,
        ),
        ("off by exactly one block: the model has n_layers of them", expected - block),
        ("off by exactly one block: the model has n_layers of them", expected + block),
        (
            "the count passed 2**31 and wrapped around: how large an integer does int32 hold?",
            (expected + 2**31) % 2**32 - 2**31,
        ),
        (
            "the count is off in its last digits: float32 holds integers exactly only up to 2**24",
            float(np.float32(expected)),
        ),
    ]

    judge = exact_count(expected, diagnoses)

    return Check(what, [Call((V, T, C, L, H))], judge)


def gpt_params_checks(rng: np.random.Generator) -> list[Check]:
    """The chapter's model, one layer, one head, and random configurations, against TinyGPT."""
    checks = [
        _judge_gpt_params(27, 15, 32, 1, 4, "the chapter's configuration"),
        _judge_gpt_params(2, 1, 1, 1, 1, "the smallest model: V=2, T=1, C=1, one layer"),
        _judge_gpt_params(27, 16, 64, 4, 4, "makemore's default transformer size"),
        _judge_gpt_params(50257, 2048, 12288, 96, 96, "GPT-3's size: 175 billion, past 2**32"),
    ]
    for _ in range(5):
        H = int(rng.integers(1, 5))
        C = H * int(rng.integers(1, 17))
        V, T, L = int(rng.integers(2, 200)), int(rng.integers(1, 65)), int(rng.integers(1, 5))
        checks.append(
            _judge_gpt_params(V, T, C, L, H, f"V={V}, T={T}, C={C}, {L} layers, {H} heads")
        )
    return checks
