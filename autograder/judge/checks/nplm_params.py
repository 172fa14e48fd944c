"""Hidden checks for chapter 03's `nplm_params`: the most hidden units a parameter budget allows.

Each configuration is asked at budgets its widths fit exactly, one parameter below, and one below
the next width's count (the off-by-ones of the edge), with and without direct connections, with a
tied output layer (which no model of the course builds), with the embedding as wide as the hidden
layer (`d=None`: a count quadratic in the width, solved in integers), at budgets up to 10**18 (a width no
model could be built with, and past float64's integers: widths past 2**53 a float64 rounds down,
at the budget they fit exactly, and widths it holds, one parameter below), a budget no width fits,
and arguments that describe no model. The reference is the count of the contract's arrays,
inverted exactly by bisection (`parameter_budget_shared`).
"""

import math

import numpy as np

from autograder.judge.check import Check
from autograder.judge.checks.parameter_budget_shared import (
    FLOAT_EXACT,
    Count,
    bad_input_check,
    budget_check,
    widest,
)
from autograder.judge.declaration import Exercise
from autograder.sandbox.guest.protocol import Call

EXERCISE = Exercise(
    name="nplm_params",
    chapter="03_mlp_lm",
    points=1,
    kind="derive",
    parameter_count=True,
    library=("nplm:init_nplm", "baselines:TorchContextMLP"),
)


def nplm_count(V: int, d: int | None, n: int, direct: bool, tied: bool) -> Count:
    """The number of parameters of the contract's model as a function of its hidden width: E, W1,
    b1, W2 and b2 (W4 into E's space instead of W2 when tied), and W3 with direct connections.
    `d` None: the embedding as wide as the hidden layer (a quadratic in the width)."""
    if d is None:
        return lambda w: nplm_count(V, w, n, direct, tied)(w)
    context = (n - 1) * d

    def count(dh: int) -> int:
        output = dh * d if tied else dh * V
        return V * d + context * dh + dh + output + V + (V * context if direct else 0)

    return count


def _miscounts(V: int, d: int | None, n: int, direct: bool, tied: bool) -> list[tuple[str, Count]]:
    """The known miscounts, each as a count of the width, named by what it gets wrong (with `d`
    None, the same miscounts with the embedding as wide as the hidden layer)."""
    if d is None:
        named = [hint for hint, _ in _miscounts(V, 1, n, direct, tied)]
        return [
            (hint, lambda w, i=i: _miscounts(V, w, n, direct, tied)[i][1](w))
            for i, hint in enumerate(named)
        ]
    right = nplm_count(V, d, n, direct, tied)
    longer = nplm_count(V, d, n + 1, direct, tied)  # n symbols read instead of n - 1
    found = [
        (
            "a count of a model reading n symbols: a model of order n reads n - 1",
            longer,
        ),
        (
            "a count that reads n symbols and has no bias vectors: how many "
            "symbols does a model of order n read, and which layers add a bias?",
            lambda dh: longer(dh) - dh - V,
        ),
        (
            "a count that leaves out both layers' bias vectors",
            lambda dh: right(dh) - dh - V,
        ),
        (
            "a count that leaves out the hidden layer's bias vector",
            lambda dh: right(dh) - dh,
        ),
        (
            "a count that leaves out the output layer's bias vector",
            lambda dh: right(dh) - V,
        ),
        (
            "the count without direct connections: they are a weight matrix of "
            "their own, from the concatenated embeddings to the logits"
            if direct
            else "the count with direct connections: they exist only when direct is True",
            nplm_count(V, d, n, not direct, tied),
        ),
    ]
    if tied:
        found += [
            (
                "the untied model's count, with tied=True: which weights does "
                "the tied output layer share, and which does it add?",
                nplm_count(V, d, n, direct, False),
            ),
            (
                "a count, with tied=True, that holds the embedding table twice",
                lambda dh: right(dh) + V * d,
            ),
            (
                "a count, with tied=True, without the map from the hidden layer "
                "into the embedding space",
                lambda dh: right(dh) - dh * d,
            ),
        ]
    return found


def _call(V: int, d: int | None, n: int, budget: int, direct: bool, tied: bool, style: int) -> Call:
    """The call in one of the contract's styles: positional, `direct` by keyword, or with `tied`."""
    if tied:
        return Call((V, d, n, budget), {"direct": direct, "tied": True})
    if style:
        return Call((V, d, n, budget), {"direct": direct})
    return Call((V, d, n, budget, direct))


def _at(
    V: int, d: int | None, n: int, direct: bool, tied: bool, budget: int, what: str, style: int = 0
) -> Check:
    call = _call(V, d, n, budget, direct, tied, style)
    count = nplm_count(V, d, n, direct, tied)
    miscounts = _miscounts(V, d, n, direct, tied)
    return budget_check(what, call, count, budget, 1, miscounts)


def _edges(
    V: int, d: int | None, n: int, direct: bool, tied: bool, dh: int, what: str, style: int = 0
) -> list[Check]:
    """The budgets at the edges of width dh: its count, one less, and one below the next width's."""
    count = nplm_count(V, d, n, direct, tied)
    return [
        _at(
            V, d, n, direct, tied, count(dh), f"{what}: the budget width {dh:,} fits exactly", style
        ),
        _at(V, d, n, direct, tied, count(dh) - 1, f"{what}: one parameter less", style),
        _at(
            V, d, n, direct, tied, count(dh + 1) - 1, f"{what}: one short of the next width", style
        ),
    ]


def _float_rounds(width: int, below: bool) -> int:
    """The nearest width at or below `width` (past 2**53) that a float64 rounds down (`below`) or
    holds: at the budget the first fits exactly, a float quotient lands below it; one parameter
    below the second's count, the quotient rounds up to it."""
    while not (float(width) < width if below else float(width) == width):
        width -= 1  # (an int and a float compare exactly)
    return width


# the quadratic formula in float64, as a student may first write it, for a w^2 + b w + c <= B
FLOAT_ROOTS = (
    lambda a, b, c, B: math.floor(
        (-b + math.sqrt(float(b) * b + 4.0 * a * (float(B) - c))) / (2 * a)
    ),
    lambda a, b, c, B: math.floor(-b / (2 * a) + math.sqrt((b / (2 * a)) ** 2 + (B - c) / a)),
)


def _square_checks(rng: np.random.Generator) -> list[Check]:
    """d None, the embedding as wide as the hidden layer: a count quadratic in the width, at the
    edges of a width for small and random configurations, and at budgets up to 10**18 (one short
    of a width's count, the quadratic formula in floats gives that width: measured 200 of 200),
    the largest discriminant (past 2**64), an exact-fit budget each FLOAT_ROOTS form lands below
    (a red team's: corrected downwards only, they passed 86 and 84 seeds of 100), a budget below
    one unit and arguments no model has."""
    checks = [
        *_edges(27, None, 4, False, False, 20, "d = None (d = dh), characters: V=27, n=4"),
        *_edges(16383, None, 5, True, True, 40, "d = None, Brown's V and n, direct and tied", 1),
    ]
    for index in range(2):
        V, _, n = _random_config(rng)
        direct, tied = bool(index % 2), bool(rng.integers(2))
        what = f"d = None, V={V}, n={n}, direct={direct}, tied={tied}"
        checks += _edges(V, None, n, direct, tied, int(rng.integers(1, 300)), what, index)
    for index in range(3):  # budgets of 10**17 to 10**18: widths of a hundred million
        V, _, n = _random_config(rng)
        checks += _large_budget(rng, V, None, n, bool(index % 2), index == 2)
    # the largest discriminant within 10**18 (n = 8, direct and tied: b*b + 4a(budget - c) is past
    # 2**64, where an integer square root started too low, or NumPy's, goes wrong)
    count = nplm_count(4999, None, 8, True, True)
    wide = widest(count, 10**18, 1) - 1
    what = f"d = None, V=4999, n=8, direct and tied, width {wide:,}"
    checks += [
        _at(4999, None, 8, True, True, count(wide), f"{what}: a budget it fits exactly"),
        _at(4999, None, 8, True, True, count(wide + 1) - 1, f"{what}: one short of the next"),
    ]
    for form in FLOAT_ROOTS:  # a budget a width fits exactly, where a float formula lands below
        for _ in range(1000):  # about 20 draws each (measured); bounded all the same
            V, _, n = _random_config(rng)
            direct, tied = bool(rng.integers(2)), bool(rng.integers(2))
            count = nplm_count(V, None, n, direct, tied)
            wide = int(rng.integers(10**8, widest(count, 10**18, 1)))
            a, b, c = n - 1 + tied, V + 1 + (not tied) * V + direct * (n - 1) * V, V
            if form(a, b, c, count(wide)) < wide:
                break
        what = f"d = None, V={V}, n={n}, direct={direct}, tied={tied}, width {wide:,}"
        checks.append(_at(V, None, n, direct, tied, count(wide), f"{what}: it fits exactly"))
    small = nplm_count(27, None, 4, False, False)
    checks.append(_at(27, None, 4, False, False, small(1) - 1, "d = None: one short of one unit"))
    for args, hint in [
        ((27, None, 1, 10**6, False), "n = 1 with d = None: a model of order 1 reads no symbol"),
        ((0, None, 4, 10**6, False), "V = 0 with d = None: an empty vocabulary"),
    ]:
        checks.append(bad_input_check(f"arguments no model has: {hint}", Call(args), hint))
    return checks


def _large_budget(
    rng: np.random.Generator, V: int, d: int | None, n: int, direct: bool, tied: bool
) -> list[Check]:
    """A budget of 10**17 to 10**18, and the budgets its width fits exactly and one short of the
    next width's count."""
    count = nplm_count(V, d, n, direct, tied)
    budget = int(rng.integers(10**17, 10**18))
    wide = widest(count, budget, 1)
    what = f"V={V}, d={d}, n={n}, direct={direct}, tied={tied}, width {wide:,}"
    return [
        _at(V, d, n, direct, tied, count(wide), f"{what}: a budget it fits exactly"),
        _at(V, d, n, direct, tied, count(wide + 1) - 1, f"{what}: one short of the next width"),
        _at(V, d, n, direct, tied, budget, f"{what}: a budget of {budget:,}"),
    ]


def _random_config(rng: np.random.Generator) -> tuple[int, int, int]:
    return int(rng.integers(2, 5000)), int(rng.integers(1, 64)), int(rng.integers(2, 9))


def nplm_params_checks(rng: np.random.Generator) -> list[Check]:
    """Budgets at the edges of a width for the Brown configuration, characters, n = 2, direct and
    tied models and random configurations; budgets up to 10**18; no width fitting; bad arguments."""
    checks = [
        *_edges(16383, 30, 5, False, False, 100, "the Brown configuration"),
        *_edges(16383, 30, 5, True, False, 1, "the Brown configuration, direct", style=1),
        *_edges(27, 10, 4, False, False, 200, "characters: V=27, d=10, n=4", style=1),
        *_edges(5, 2, 2, True, False, 3, "n = 2 (one context symbol), direct"),
        *_edges(16383, 30, 5, False, True, 100, "the Brown configuration, tied"),
        *_edges(27, 10, 4, True, True, 7, "characters, direct and tied"),
    ]
    for index in range(4):
        V, d, n = _random_config(rng)
        direct, tied = bool(index % 2), index >= 2
        dh = int(rng.integers(1, 512))
        what = f"V={V}, d={d}, n={n}, direct={direct}, tied={tied}"
        checks += _edges(V, d, n, direct, tied, dh, what, style=index % 2)
    for index in range(4):  # widths in the trillions: no model could be built, a float64 rounds
        V, d, n = _random_config(rng)
        checks += _large_budget(rng, V, d, n, bool(index % 2), index == 3)
    # widths past 2**53, which a float64 holds only to a multiple of 2 or more
    for index in range(4):
        V, d, n = int(rng.integers(2, 40)), int(rng.integers(1, 9)), int(rng.integers(2, 4))
        config = (V, d, n, bool(index % 2), index >= 2)  # direct, tied
        count = nplm_count(*config)
        top = (10**18 - count(0)) // (count(1) - count(0))  # the widest within 10**18
        down = _float_rounds(int(rng.integers(FLOAT_EXACT + 1, top)), below=True)
        up = _float_rounds(int(rng.integers(FLOAT_EXACT + 1, top)), below=False)
        what = f"V={V}, d={d}, n={n}, direct={config[3]}, tied={config[4]}"
        checks += [
            _at(*config, count(down), f"{what}: width {down:,} fits exactly"),
            _at(*config, count(up) - 1, f"{what}: one short of width {up:,}"),
        ]
    checks += _square_checks(rng)
    small = nplm_count(27, 10, 4, False, False)
    checks += [
        _at(27, 10, 4, False, False, small(1) - 1, "a budget one short of a single hidden unit"),
        _at(16383, 30, 5, True, False, 2_158_273, "Brown's budget with direct connections"),
        _at(27, 10, 4, False, False, 0, "a budget of 0"),
    ]
    for args, hint in [
        ((27, 10, 1, 10**6, False), "n = 1: a model of order n reads n - 1 symbols, none here"),
        ((27, 0, 4, 10**6, False), "d = 0: no embedding has 0 numbers"),
        ((0, 10, 4, 10**6, False), "V = 0: an empty vocabulary"),
    ]:
        checks.append(bad_input_check(f"arguments no model has: {hint}", Call(args), hint))
    return checks
