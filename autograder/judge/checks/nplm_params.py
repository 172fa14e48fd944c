"""Hidden checks for chapter 03's `nplm_params`: the Brown configuration with and without direct connections, n = 2, random configurations, and tied output layers.

The reference is the closed form. A tied output layer (logits `(h @ W4) @ E.T + b2`) is built by
no model of the course, so no model's own count answers it.
"""

import numpy as np

from autograder.judge.check import Check
from autograder.judge.declaration import Exercise
from autograder.judge.expect import (
    exact_count,
)
from autograder.sandbox.guest.protocol import Call

EXERCISE = Exercise(
    name="nplm_params",
    chapter="03_mlp_lm",
    points=1,
    kind="derive",
    parameter_count=True,
    library=("nplm:init_nplm", "baselines:TorchContextMLP"),
)


def _judge_params(
    V: int,
    d: int,
    n: int,
    dh: int,
    direct: bool,
    what: str,
    keyword: bool = False,
    tied: bool = False,
) -> Check:
    c = n - 1
    output = dh * d if tied else V * dh  # the map into the embedding space, or W2
    expected = V * d + c * d * dh + dh + output + V + (V * c * d if direct else 0)
    diagnoses = [
        (
            "the count is that of a model reading n symbols and with no bias vectors: how many "
            "symbols does a model of order n read, and which layers add a bias?",
            V * d + n * d * dh + V * dh + (V * n * d if direct else 0),
        ),
        (
            "the count is that of a model reading n symbols: a model of order n reads n - 1",
            expected + d * dh + (V * d if direct else 0),
        ),
        ("the count leaves out both layers' bias vectors", expected - dh - V),
        ("the count leaves out the hidden layer's bias vector", expected - dh),
        ("the count leaves out the output layer's bias vector", expected - V),
        (
            "with direct=True the count is the one without: direct connections are a weight "
            "matrix of their own, from the concatenated embeddings to the logits",
            expected - V * c * d,
        ),
        (
            "with direct=False the count includes direct connections: they exist only when "
            "direct is True",
            expected + V * c * d,
        ),
    ]
    if tied:
        diagnoses += [
            (
                "with tied=True the count is the untied model's: which weights does the tied "
                "output layer share, and which does it add?",
                expected - output + V * dh,
            ),
            ("with tied=True the count holds the embedding table twice", expected + V * d),
            (
                "with tied=True the count leaves out the map from the hidden layer into the "
                "embedding space",
                expected - output,
            ),
        ]
    if tied:
        call = Call((V, d, n, dh), {"direct": direct, "tied": True})
    elif keyword:
        call = Call((V, d, n, dh), {"direct": direct})
    else:
        call = Call((V, d, n, dh, direct))

    judge = exact_count(expected, diagnoses)

    return Check(what, [call], judge)


def nplm_params_checks(rng: np.random.Generator) -> list[Check]:
    """The Brown configuration with and without direct connections, n = 2, random configurations, and tied output layers."""
    checks = [
        _judge_params(16383, 30, 5, 100, False, "the Brown configuration (2,158,273)"),
        _judge_params(16383, 30, 5, 100, True, "the Brown configuration with direct connections"),
        _judge_params(27, 10, 4, 200, False, "characters: V=27, d=10, n=4, dh=200", keyword=True),
        _judge_params(5, 2, 2, 3, True, "n = 2 (one context word), direct", keyword=True),
    ]
    for _ in range(6):
        V, d, n, dh = (
            int(rng.integers(2, 5000)),
            int(rng.integers(1, 64)),
            int(rng.integers(2, 9)),
            int(rng.integers(1, 512)),
        )
        direct = bool(rng.integers(0, 2))
        checks.append(
            _judge_params(V, d, n, dh, direct, f"V={V}, d={d}, n={n}, dh={dh}, direct={direct}")
        )
    checks += [
        _judge_params(16383, 30, 5, 100, False, "the Brown configuration, tied", tied=True),
        _judge_params(27, 10, 4, 200, True, "characters, direct and tied", tied=True),
    ]
    for _ in range(3):
        V, d, n, dh = (
            int(rng.integers(2, 5000)),
            int(rng.integers(1, 64)),
            int(rng.integers(2, 9)),
            int(rng.integers(1, 512)),
        )
        direct = bool(rng.integers(0, 2))
        checks.append(
            _judge_params(
                V,
                d,
                n,
                dh,
                direct,
                f"V={V}, d={d}, n={n}, dh={dh}, direct={direct}, tied",
                tied=True,
            )
        )
    return checks
