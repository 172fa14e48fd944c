"""Helpers the hidden checks rely on: non-contiguous views, aliasing found, gradients handed out watched."""

import ast

import numpy as np
import pytest
from conftest import REPO

from autograder.judge.check import CheckFailed
from autograder.judge.exercises import EXERCISES
from autograder.judge.expect import expect_fresh
from autograder.judge.outcomes import _outcome
from autograder.sandbox.guest.calls import run_call
from autograder.sandbox.guest.layout_probes import as_layout, layout_probe, strided
from autograder.sandbox.guest.protocol import Call


@pytest.mark.parametrize("shape", [(3,), (2, 5), (2, 3, 4)])
def test_strided_views_hold_the_same_values_in_no_contiguous_layout(shape):
    array = np.random.default_rng(0).normal(size=shape)
    view = strided(array)
    assert np.array_equal(view, array) and view.shape == array.shape
    assert not view.flags.c_contiguous and not view.flags.f_contiguous


def test_the_layout_probe_passes_views_and_leaves_scalars():
    seen = []
    layout_probe(
        lambda x, eps: seen.append((x.flags.c_contiguous, eps)),
        (np.ones((2, 2)), 0.5),
        {},
        "strided",
    )
    assert seen == [(False, 0.5)]
    assert as_layout(np.ones((2, 2)), "transposed").flags.f_contiguous


def test_the_layout_probe_reports_aliases_as_a_plain_call_does():
    x = np.arange(6.0).reshape(2, 3)
    report = layout_probe(lambda a, P: (a, P["W"][0]), (x, {"W": x}), {}, "strided")
    assert report["aliases"] == [["the answer[0]", 0], ["the answer[1]", 1]]


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


def _one_seed(rates: np.ndarray, seed: int) -> tuple[float, list[float]]:
    """Chapter 06's training, one seed at a time with the library's step (what the judge batches)."""
    from autograder.judge.checks.learning_rates import BATCH, _windows
    from proof_lm.batching import random_batches
    from proof_lm.nplm import init_nplm, nplm_loss_and_grads, nplm_mean_loss

    X, Y, X_dev, Y_dev, V = _windows()
    rng = np.random.default_rng(seed)
    P = init_nplm(V, 10, 3, 200, rng)
    losses = []
    with np.errstate(all="ignore"):
        for step, (xb, yb) in enumerate(random_batches(X, Y, BATCH, len(rates), rng)):
            loss, grads = nplm_loss_and_grads(P, xb, yb)
            losses.append(float(loss))
            if not np.isfinite(loss):
                break
            for name, grad in grads.items():
                P[name] -= rates[step] * grad
    dev = float(nplm_mean_loss(P, X_dev, Y_dev)) if np.isfinite(losses[-1]) else np.inf
    return dev, losses


def test_the_schedule_judge_trains_each_seed_as_a_run_of_its_own_would():
    # the design exercise's judge trains its hidden seeds side by side: a schedule that trains, a
    # constant one, and one too short to reach ten steps give each seed's own run
    from autograder.judge.checks.learning_rates import SPIKE, dev_losses_after

    seeds = [11, 12, 13]
    ramp = np.concatenate([np.linspace(0.1, 1.5, 30), np.linspace(1.5, 0.0, 270)])
    for rates in (ramp, np.full(100, 0.5), np.full(6, 0.5)):
        runs = dev_losses_after(rates, seeds)
        for seed, run in zip(seeds, runs, strict=True):
            dev, losses = _one_seed(rates, seed)
            later = losses[10:] or [losses[-1]]
            assert run.dev_loss == pytest.approx(dev, rel=1e-9) or run.dev_loss == dev == np.inf
            assert run.first_loss == pytest.approx(losses[0], rel=1e-12)
            assert run.worst_loss == pytest.approx(max(later), rel=1e-9)
    # steps far past the edge are chaotic (rounding alone sends two runs apart, however computed):
    # both ways spike on every seed, which is what the judge reads from them
    for seed, run in zip(seeds, dev_losses_after(np.full(40, 500.0), seeds), strict=True):
        _, losses = _one_seed(np.full(40, 500.0), seed)
        assert run.worst_loss > SPIKE * run.first_loss and max(losses[10:]) > SPIKE * losses[0]


def test_every_check_module_is_an_exercises_or_shared_by_some():
    # one module per exercise, named after it; any other module of checks/ is imported by one
    checks = REPO / "autograder" / "judge" / "checks"
    own = {exercise.module for exercise in EXERCISES.values()}
    assert all((checks / f"{name}.py").is_file() for name in own)
    for exercise in EXERCISES.values():
        assert callable(getattr(exercise.checks_module, f"{exercise.name}_checks"))
    imported = {
        node.module.removeprefix("autograder.judge.checks.")
        for path in checks.glob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom)
        and (node.module or "").startswith("autograder.judge.checks.")
    }
    others = {p.stem for p in checks.glob("*.py")} - own - {"__init__"}
    assert others and others <= imported, others - imported


@pytest.mark.parametrize("name", ["nplm_grads", "nplm_direct_grads"])
def test_a_gradient_check_holds_a_model_finite_differences_cannot_reach(name):
    """The backward passes are graded on a model whose finite differences (two forward passes per
    parameter, each timed here) take far longer than a graded exercise may run: only a derived
    gradient passes that check."""
    import time

    from autograder.judge.session import TIMEOUT_SECONDS

    def size(call: Call) -> int:
        return sum(np.size(value) for value in call.args[0].values() if value is not None)

    calls = [check.calls[0] for check in EXERCISES[name].checks(0)]
    call = max((c for c in calls if c.probe is None), key=size)
    P, X, Y = call.args
    start = time.process_time()
    x = P["E"][X].reshape(len(X), -1)
    logits = np.tanh(x @ P["W1"] + P["b1"]) @ P["W2"] + P["b2"]
    if P.get("W3") is not None:
        logits = logits + x @ P["W3"]
    forward = time.process_time() - start
    assert logits.shape == (len(Y), P["E"].shape[0])
    assert 2 * size(call) * forward > 10 * TIMEOUT_SECONDS, (size(call), forward)


@pytest.mark.parametrize("seed", range(20))
def test_the_rows_of_different_scale_catch_a_batch_wide_shift_whatever_the_draw(seed):
    # a softmax shifted by the batch's largest logit underflows the quiet rows (0/0) only when the
    # rows' largest logits lie far apart: the case must make them so for every seed, not for most
    import importlib.util

    from autograder.judge.checks.nplm_direct_grads import nplm_direct_grads_checks

    path = REPO / "tests" / "implementations" / "nplm_direct_grads" / "wrong_global_max.py"
    spec = importlib.util.spec_from_file_location("wrong_global_max", path)
    wrong = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(wrong)
    (check,) = [
        c
        for c in nplm_direct_grads_checks(np.random.default_rng(seed))
        if "rows of very different scale" in c.name
    ]
    with np.errstate(all="ignore"):
        grads = wrong.nplm_direct_grads(*check.calls[0].args)
    assert not all(np.isfinite(g).all() for g in grads.values())
