"""Helpers the hidden checks rely on: non-contiguous views, aliasing found, gradients handed out watched."""

import numpy as np
import pytest

from autograder.expect import expect_fresh
from autograder.inside.harness import Call, CheckFailed, run_call
from autograder.inside.probes import strided, strided_probe
from autograder.wall.answers import _outcome


@pytest.mark.parametrize("shape", [(3,), (2, 5), (2, 3, 4)])
def test_strided_views_hold_the_same_values_in_no_contiguous_layout(shape):
    array = np.random.default_rng(0).normal(size=shape)
    view = strided(array)
    assert np.array_equal(view, array) and view.shape == array.shape
    assert not view.flags.c_contiguous and not view.flags.f_contiguous


def test_strided_probe_passes_views_and_leaves_scalars():
    seen = []
    strided_probe(lambda x, eps: seen.append((x.flags.c_contiguous, eps)), np.ones((2, 2)), 0.5)
    assert seen == [(False, 0.5)]


def test_run_call_reports_answers_that_share_memory_with_an_argument():
    x, y = np.arange(6.0).reshape(2, 3), np.ones(3)
    assert run_call(lambda a, b: (a, a[0] + b), Call((x, y))).aliases == [["the answer[0]", 0]]
    assert run_call(lambda a, b: {"v": b[::2]}, Call((x, y))).aliases == [["the answer['v']", 1]]
    assert run_call(lambda a, b: (a.copy(), b + 0), Call((x, y))).aliases == []
    outcome = run_call(lambda a, b: a.T, Call((x, y)))
    with pytest.raises(CheckFailed, match="is x itself"):
        expect_fresh(outcome, ("x", "y"))


def test_aliases_from_the_grading_process_are_checked():
    assert _outcome({"aliases": [["the answer", 1]]}).aliases == [["the answer", 1]]
    with pytest.raises(ValueError):
        _outcome({"aliases": "everything"})
