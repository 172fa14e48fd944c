"""proof_lm.rules: the visible tests' warning that a NumPy exercise's function reaches PyTorch or
arbitrary-precision arithmetic."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F  # noqa: N812

from proof_lm.rules import absent_reached, numpy_only

T = torch.ones(1)


def plain(x):
    return np.exp(x) / np.exp(x).sum()


def direct(x):
    return torch.softmax(torch.as_tensor(x), 0).numpy()


def _helper(x):
    return F.softmax(x, 0)


def through_a_helper(x):
    return _helper(x)


def imports_inside(x):
    import torch.nn.functional as G  # noqa: N812

    return G.softmax(x, 0)


def a_tensor_global(x):
    return x + T


class Model:
    def run(self, x):
        return F.relu(x)


def through_a_class(x):
    return Model().run(x)


def closure():
    t = torch

    def inner(x):
        return t.exp(x)

    return inner


def in_decimals(x):
    from decimal import Decimal

    return float(Decimal(x).exp())


def _mpmath_helper(x):
    import mpmath

    return mpmath.exp(x)


def through_mpmath(x):
    return float(_mpmath_helper(x))


def recursive(x):
    return x if x < 1 else recursive(x - 1)


@pytest.mark.parametrize(
    ("fn", "names"),
    [
        (plain, []),
        (recursive, []),
        (direct, ["torch"]),
        (through_a_helper, ["F"]),
        (imports_inside, ["torch.nn.functional"]),
        (a_tensor_global, ["T"]),
        (through_a_class, ["F"]),
        (closure(), ["t"]),
        (in_decimals, ["decimal"]),
        (through_mpmath, ["mpmath"]),
    ],
)
def test_what_reaches_pytorch_or_extended_precision_is_named(fn, names):
    assert list(absent_reached(fn)) == names


def test_numpy_only_says_the_rule_before_hand_in():
    numpy_only(plain)
    with pytest.raises(
        AssertionError, match="direct reaches PyTorch through torch: NumPy exercises"
    ):
        numpy_only(direct)
    with pytest.raises(
        AssertionError,
        match="in_decimals reaches arbitrary-precision arithmetic through decimal: NumPy exercises",
    ):
        numpy_only(in_decimals)
