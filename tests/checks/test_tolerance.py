"""The precision policy of the checks: float32 inside passes, a small slip and strict checks do not."""

import numpy as np
import pytest

from autograder.judge.check import CheckFailed
from autograder.judge.expect import FLOAT32_RTOL, expect_close, float32_rtol, matches


def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("seed", range(5))
def test_a_softmax_in_float32_passes_and_one_with_a_slip_of_1e_4_does_not(seed):
    z = np.random.default_rng(seed).normal(0, 3, (8, 27))
    exact = softmax(z)
    in_float32 = softmax(z.astype(np.float32)).astype(np.float64)
    assert not matches(in_float32, exact, 1e-9, 1e-12, strict=True)  # float64's tolerance
    assert matches(in_float32, exact, 1e-9, 1e-12)  # widened to float32's precision
    slipped = softmax(z * (1 + 1e-4))  # e.g. a temperature off by 1e-4
    assert not matches(slipped, exact, 1e-9, 1e-12)


def test_logits_near_1000_widen_the_tolerance_as_float32_needs_and_no_more():
    z = np.random.default_rng(0).normal(0, 3, (8, 27)) + 1000.0
    exact = softmax(z)
    in_float32 = softmax(z.astype(np.float32)).astype(np.float64)
    assert matches(in_float32, exact, 1e-9, 1e-12, inputs=1000.0)
    assert float32_rtol(0.0) == FLOAT32_RTOL and float32_rtol(1e12) == 0.05  # capped
    assert not matches(softmax(z * 1.001), exact, 1e-9, 1e-12, inputs=1000.0)


def test_exact_answers_stay_exact():
    assert not matches(np.array([100001.0]), np.array([100000.0]), 0, 0)


def test_a_strict_check_names_float32_and_float64():
    exact = np.array([0.25, 0.75])
    with pytest.raises(CheckFailed, match="precision of float32: this check needs float64"):
        expect_close(exact * (1 + 3e-7), exact, 1e-9, 1e-12, strict=True)
    expect_close(exact * (1 + 3e-7), exact, 1e-9, 1e-12)  # passes when not strict


def test_a_small_miss_is_told_apart_from_a_wrong_formula_and_keeps_the_note():
    exact = np.array([0.25, 0.75])
    with pytest.raises(CheckFailed, match=r"off by about 2e-04 .* small term.*\(a note\)"):
        expect_close(exact * (1 + 2e-4), exact, 1e-9, 1e-12, note=" (a note)")
    with pytest.raises(CheckFailed, match="entries differ"):
        expect_close(exact[::-1], exact, 1e-9, 1e-12)
