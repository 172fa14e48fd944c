"""Hidden checks for chapter 07's `gpt_params`: the chapter's model, the smallest, GPT-3's size, and
random configurations with and without attention biases and a tied output layer, against the
contract's model built from PyTorch's modules."""

import numpy as np
import torch
from torch import nn

from autograder.judge.check import Check
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    exact_count,
)
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


def _judge_gpt_params(
    V: int, T: int, C: int, L: int, H: int, bias: bool, tied: bool, what: str
) -> Check:
    expected = reference_count(V, T, C, L, H, bias, tied)
    block = 12 * C * C + (13 if bias else 9) * C
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
        ("short by exactly the MLP's biases: both of its layers have them", expected - L * 5 * C),
        (
            "the MLP's hidden layer is counted C wide: what width does the description give it?",
            expected - L * 6 * C * C - L * 3 * C,
        ),
        (
            "short by one C x C projection per block: how many projections does the description give "
            "the attention?",
            expected - L * (C * C + (C if bias else 0)),
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
    if bias:
        diagnoses.append(
            (
                "short by exactly the attention projections' biases (attention_bias=True)",
                expected - L * 4 * C,
            )
        )
    else:
        diagnoses.append(
            (
                "over by exactly biases on the attention projections, which have none unless "
                "attention_bias is set",
                expected + L * 4 * C,
            )
        )
    if tied:
        diagnoses += [
            (
                "over by exactly one (V, C) array: a tied output layer shares the token "
                "embedding's array, which counts once",
                expected + C * V,
            ),
            ("over by exactly V: the tied output layer has no bias", expected + V),
            (
                "over by exactly the output layer's weights and a bias: with tied=True the output "
                "layer has no array of its own",
                expected + C * V + V,
            ),
        ]
    else:
        diagnoses += [
            (
                "short by exactly the output layer, as if tied to the token embedding: unless "
                "tied is set it has weights and biases of its own",
                expected - C * V - V,
            ),
            (
                "short by exactly the output layer's weights: unless tied is set it has weights of "
                "its own",
                expected - C * V,
            ),
            ("short by exactly the output layer's biases", expected - V),
        ]
    kwargs = {"attention_bias": bias, "tied": tied}
    return Check(what, [Call((V, T, C, L, H), kwargs)], exact_count(expected, diagnoses))


def gpt_params_checks(rng: np.random.Generator) -> list[Check]:
    """The chapter's model, the smallest, GPT-3's size, and random configurations with every
    combination of the options."""
    checks = [
        _judge_gpt_params(27, 15, 32, 1, 4, False, False, "the chapter's configuration"),
        _judge_gpt_params(2, 1, 1, 1, 1, False, False, "the smallest model: V=2, T=1, C=1"),
        _judge_gpt_params(2, 1, 1, 1, 1, True, True, "the smallest model, GPT-2's options"),
        _judge_gpt_params(27, 16, 64, 4, 4, True, False, "attention biases, an untied output"),
        _judge_gpt_params(
            50257, 2048, 12288, 96, 96, True, True, "GPT-3's size: 175 billion, past 2**32"
        ),
        _judge_gpt_params(
            50257, 2048, 12288, 96, 96, False, False, "GPT-3's size without GPT-2's options"
        ),
    ]
    for bias, tied in ((False, False), (True, False), (False, True), (True, True), (False, True)):
        H = int(rng.integers(1, 9))
        C = H * int(rng.integers(1, 17))
        V, T, L = int(rng.integers(2, 300)), int(rng.integers(1, 129)), int(rng.integers(1, 7))
        checks.append(
            _judge_gpt_params(
                V,
                T,
                C,
                L,
                H,
                bias,
                tied,
                f"V={V}, T={T}, C={C}, {L} layers, {H} heads, attention_bias={bias}, tied={tied}",
            )
        )
    return checks
