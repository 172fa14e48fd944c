"""Hidden checks for chapter 07's `gpt_params`: the widest GPT (a multiple of its heads) a parameter
budget allows.

Each configuration is asked at budgets a width fits exactly, one parameter below, and one below the
next width's count, with every combination of the options (TinyGPT has neither), at GPT-2's and
GPT-3's sizes, at budgets up to 10**18 (widths no model could be built with, past float64's
integers), a budget no width fits, and arguments that describe no model. The reference count is
the contract's model built from PyTorch's modules on the meta device: read at three widths (the
count is a polynomial of degree two in the width, which a fourth width confirms), it is inverted
exactly by bisection (`parameter_budget_shared`).
"""

import functools

import numpy as np
import torch
from torch import nn

from autograder.judge.check import Check
from autograder.judge.checks.parameter_budget_shared import (
    Count,
    bad_input_check,
    budget_check,
    widest,
)
from autograder.judge.declaration import Exercise
from autograder.sandbox.guest.protocol import Call

EXERCISE = Exercise(
    name="gpt_params",
    chapter="07_attention",
    points=1,
    kind="derive",
    parameter_count=True,
    library=("gpt:TinyGPT",),
)


def reference_count(
    V: int, T: int, C: int, n_layers: int, n_heads: int, attention_bias: bool, tied: bool
) -> int:
    """The number of parameters of the contract's model, built from torch's modules on the meta
    device (shapes without memory, so GPT-3's size costs nothing); a shared array counts once.
    The heads only split the projections' columns: `n_heads` builds nothing."""
    with torch.device("meta"):
        token = nn.Embedding(V, C)
        parts = [token, nn.Embedding(T, C), nn.LayerNorm(C)]  # the last: the final layer norm
        for _ in range(n_layers):
            parts += [nn.LayerNorm(C), nn.LayerNorm(C), nn.Linear(C, 4 * C), nn.Linear(4 * C, C)]
            parts += [nn.Linear(C, C, bias=attention_bias) for _ in range(4)]
        head = nn.Linear(C, V, bias=not tied)
        if tied:
            head.weight = token.weight
        parts.append(head)
    return sum(p.numel() for p in nn.ModuleList(parts).parameters())  # each array once


def _polynomial(values: list[int]) -> Count:
    """The polynomial of degree two through (1, values[0]), (2, values[1]), (3, values[2])."""
    second = (values[2] - 2 * values[1] + values[0]) // 2
    first = values[1] - values[0] - 3 * second
    constant = values[0] - second - first
    return lambda C: (second * C + first) * C + constant


@functools.cache
def _fits(V: int, T: int, attention_bias: bool, tied: bool) -> tuple[Count, Count]:
    """`reference_count` with no block and with one, as polynomials of degree two in the width
    through its values at widths 1, 2 and 3; confirmed at width 4 with two blocks (each block
    adds the same)."""
    bare, one = (
        _polynomial([reference_count(V, T, C, layers, 1, attention_bias, tied) for C in (1, 2, 3)])
        for layers in (0, 1)
    )
    if bare(4) + 2 * (one(4) - bare(4)) != reference_count(V, T, 4, 2, 1, attention_bias, tied):
        raise AssertionError("the reference count is not of degree two in the width, one in depth")
    return bare, one


def reference_width_count(V: int, T: int, n_layers: int, attention_bias: bool, tied: bool) -> Count:
    """`reference_count` as a function of the width."""
    bare, one = _fits(V, T, attention_bias, tied)
    return lambda C: bare(C) + n_layers * (one(C) - bare(C))


def _miscounts(
    V: int, T: int, L: int, H: int, bias: bool, tied: bool, right: Count
) -> list[tuple[str, Count]]:
    """The known miscounts, each as a count of the width, named by what it gets wrong."""

    fewer = reference_width_count(V, T, L - 1, bias, tied)  # one block less

    def shifted(extra: Count) -> Count:
        return lambda C: right(C) + extra(C)

    found = [
        ("a count without the position embeddings", shifted(lambda C: -T * C)),
        ("a count without the blocks' two layer norms", shifted(lambda C: -L * 4 * C)),
        ("a count without the final layer norm after the last block", shifted(lambda C: -2 * C)),
        ("a count without the MLP's biases, on both of its layers", shifted(lambda C: -L * 5 * C)),
        (
            "a count whose MLP hidden layer is C wide: what width does the description give it?",
            shifted(lambda C: -L * (6 * C * C + 3 * C)),
        ),
        (
            "a count with one C x C projection per block too few: how many projections does the "
            "description give the attention?",
            shifted(lambda C: -L * (C * C + (C if bias else 0))),
        ),
        (
            "a count that grows with the number of heads, where the model's does not: the heads "
            "split the projections' columns",
            shifted(lambda C: (H - 1) * L * 4 * C * C),
        ),
        (
            "a count without the attention projections' biases (attention_bias=True)"
            if bias
            else "a count with biases on the attention projections (attention_bias=False)",
            shifted(lambda C: (-L if bias else L) * 4 * C),
        ),
    ]
    found += [
        ("a count with one block too few: the model has n_layers", fewer),
        (
            "a count with one block too many: the model has n_layers",
            shifted(lambda C: right(C) - fewer(C)),
        ),
    ]
    if tied:
        found += [
            (
                "a count with a second (V, C) array: a tied output layer shares the token "
                "embedding's array, which counts once",
                shifted(lambda C: C * V),
            ),
            ("a count with a bias on the tied output layer", shifted(lambda C: V)),
            (
                "a count with the output layer's own weights and bias: with tied=True the output "
                "layer has no array of its own",
                shifted(lambda C: C * V + V),
            ),
        ]
    else:
        found += [
            (
                "a count with the output layer tied to the token embedding: unless tied is set "
                "it has weights and biases of its own",
                shifted(lambda C: -C * V - V),
            ),
            ("a count without the output layer's weights", shifted(lambda C: -C * V)),
            ("a count without the output layer's biases", shifted(lambda C: -V)),
        ]
    return [(f"{hint}", count) for hint, count in found]


def _at(V: int, T: int, L: int, H: int, bias: bool, tied: bool, budget: int, what: str) -> Check:
    count = reference_width_count(V, T, L, bias, tied)
    call = Call((V, T, L, H, budget), {"attention_bias": bias, "tied": tied})
    return budget_check(what, call, count, budget, H, _miscounts(V, T, L, H, bias, tied, count))


def _edges(
    V: int, T: int, L: int, H: int, bias: bool, tied: bool, C: int, what: str
) -> list[Check]:
    """The budgets at the edges of width C: its count, one less, and one below the next width's."""
    count = reference_width_count(V, T, L, bias, tied)
    return [
        _at(V, T, L, H, bias, tied, count(C), f"{what}: a budget width {C:,} fits exactly"),
        _at(V, T, L, H, bias, tied, count(C) - 1, f"{what}: one parameter less"),
        _at(V, T, L, H, bias, tied, count(C + H) - 1, f"{what}: one short of the next width"),
    ]


def gpt_params_checks(rng: np.random.Generator) -> list[Check]:
    """Budgets at the edges of a width for the chapter's model, the smallest, GPT-2 small and GPT-3
    and random configurations with every combination of the options; budgets up to 10**18; no
    width fitting; bad arguments."""
    checks = [
        *_edges(27, 15, 1, 4, False, False, 32, "the chapter's configuration"),
        *_edges(2, 1, 1, 1, False, False, 1, "the smallest model: V=2, T=1, one layer, one head"),
        *_edges(50257, 1024, 12, 12, True, True, 768, "GPT-2 small (both options)"),
        *_edges(27, 16, 4, 4, True, False, 64, "attention biases, an untied output"),
        *_edges(50257, 2048, 96, 96, True, True, 12288, "GPT-3's size: 175 billion"),
        _at(50257, 2048, 96, 96, False, False, 175 * 10**9, "GPT-3's budget, neither option"),
    ]
    for bias, tied in ((False, False), (True, False), (False, True), (True, True)):
        H, L = int(rng.integers(1, 9)), int(rng.integers(1, 7))
        V, T = int(rng.integers(2, 300)), int(rng.integers(1, 129))
        C = H * int(rng.integers(1, 17))
        what = f"V={V}, T={T}, {L} layers, {H} heads, attention_bias={bias}, tied={tied}"
        checks += _edges(V, T, L, H, bias, tied, C, what)
    for bias, tied in ((False, False), (True, True), (False, True), (True, False)):
        # widths in the hundreds of millions: no model could be built, a float64 rounds
        H, L = int(rng.integers(1, 9)), int(rng.integers(1, 3))
        V, T = int(rng.integers(2, 60000)), int(rng.integers(1, 4097))
        count = reference_width_count(V, T, L, bias, tied)
        budget = int(rng.integers(10**17, 10**18))
        C = widest(count, budget, H)
        what = (
            f"V={V}, T={T}, {L} layers, {H} heads, attention_bias={bias}, tied={tied}, width {C:,}"
        )
        checks += [
            _at(V, T, L, H, bias, tied, count(C), f"{what}: a budget it fits exactly"),
            _at(V, T, L, H, bias, tied, count(C + H) - 1, f"{what}: one short of the next width"),
            _at(V, T, L, H, bias, tied, budget, f"{what}: a budget of {budget:,}"),
        ]
    narrowest = reference_width_count(27, 15, 1, False, False)(4)
    checks += [
        _at(27, 15, 1, 4, False, False, narrowest - 1, "a budget one short of the narrowest model"),
        _at(27, 15, 1, 4, False, False, 0, "a budget of 0"),
    ]
    for args, hint in [
        ((27, 15, 1, 0, 10**6), "n_heads = 0: no width is a multiple of 0 heads"),
        ((27, 15, 0, 4, 10**6), "n_layers = 0: a GPT has at least one block"),
        ((0, 15, 1, 4, 10**6), "V = 0: an empty vocabulary"),
        ((27, 0, 1, 4, 10**6), "T = 0: a model that reads no position"),
    ]:
        checks.append(bad_input_check(f"arguments no model has: {hint}", Call(args), hint))
    return checks
