"""The course's timed check: a student's function's CPU time against the library's, measured in the sandbox.

One exercise is timed (`bpe_train_fast`): once its checks pass, one call's CPU time is measured in
a grading process of its own, against the reference its declaration names (`Speed`, in its check
module) run the same way in the same run; it must be within the declared ratio of it."""

import contextlib
import dataclasses
import importlib
import math
import time
from collections.abc import Callable

from autograder.judge import mounted
from autograder.judge.check import Check
from autograder.judge.declaration import Exercise, Speed
from autograder.judge.session import (
    GRADING_LIMITS,
    TIMEOUT_SECONDS,
    Unanswered,
    _judge_one,
    collect_answers,
    job,
    opening,
)
from autograder.judge.verdicts import CheckResult, Flag
from autograder.sandbox.guest.calls import run_call
from autograder.sandbox.host import bwrap
from autograder.sandbox.host.grading_process import SessionRun, run_session


def _speed(exercise: Exercise) -> Speed:
    """A timed exercise's declared speed check; ValueError for an exercise that is not timed."""
    if exercise.speed is None:
        raise ValueError(f"{exercise.name} is not timed: its declaration has no speed")
    return exercise.speed


def speed_in_process(exercise: Exercise, fn: Callable, seed: int) -> CheckResult:
    """The speed check as a hidden-test cell makes it in the student's own kernel: this process's
    CPU time for `fn` against the library's version (its `Speed.anchor`), as fast as the grader's
    reference. Only advice: code in the kernel could change this clock; the grade's is outside."""
    speed = _speed(exercise)
    check = exercise.timed_check(seed)
    anchor_module, anchor_name = speed.anchor.split(":")
    anchor = getattr(importlib.import_module(anchor_module), anchor_name)
    (call,) = check.calls
    start = time.process_time()
    anchor(*call.args)
    middle = time.process_time()
    outcome = run_call(fn, call)
    end = time.process_time()
    ratio = (end - middle) / max(middle - start, 1e-9)
    verdict = _judge_one(check, [outcome])
    if not verdict.passed:
        return CheckResult(speed_name(exercise), False, f"wrong on {check.name}: {verdict.hint}")
    if ratio > speed.ratio:
        return CheckResult(
            speed_name(exercise),
            False,
            f"too slow: {end - middle:.2f} CPU-s against {middle - start:.2f} for the library's "
            f"({ratio:.1f}x) on {check.name}; {speed.slow}",
        )
    return CheckResult(speed_name(exercise), True)


def speed_name(exercise: Exercise) -> str:
    """The name of a timed exercise's speed check, as reports show it."""
    return f"fast enough: at most {_speed(exercise).ratio:g}x the reference's CPU time"


def speed_result(exercise: Exercise, sources: list[str], seed: int, sandboxed: bool) -> CheckResult:
    """A timed exercise's speed check: its timed call made by the reference and by the student's code.

    Each run is a grading process of its own that makes that one call and may start no other
    process or thread; its CPU time is what the kernel counted for the whole sandbox, read from
    outside (`autograder.sandbox.host.grading_process`), so nothing inside can change it. Its wall time is
    held to the same ratio: a run of one process that computes takes about as long on the clock as
    on the CPU, and one that waits (for work done somewhere else, say by another sandbox) is as slow
    as one that computes. Both include loading the student's cells, which is why the limit is a
    generous ratio: an algorithm of the wrong order is many times past it, machine noise a small
    fraction of it. A student's run near the line has the reference timed again and the slower of
    the two counts (fair before strict); one well past it is stopped there (its limits).
    """
    from autograder.judge.references import reference_solutions

    name, speed = speed_name(exercise), _speed(exercise)
    ratio = speed.ratio
    check = exercise.timed_check(seed)
    reference = [reference_solutions(exercise.chapter)[exercise.name]]

    def measure_reference() -> tuple[float, float]:
        for _ in range(2):  # a reference run that fails is the machine's doing: once more
            run = timed_run(exercise, reference, check, TIMEOUT_SECONDS, sandboxed, GRADING_LIMITS)
            if run.returncode == 0 and run.answers and isinstance(run.answers[0], bytes):
                return run.cpu_seconds, run.wall_seconds
        raise Unanswered(
            "the reference could not be timed on this machine (it is overloaded): grade again",
            Flag.TIMEOUT,
        )

    try:
        cpu, wall = measure_reference()
    except Unanswered as stop:
        return CheckResult(name, False, stop.note)
    ceiling = 1.5 * ratio * max(cpu, wall)  # well past the line whatever the noise: stopped there
    limits = dataclasses.replace(GRADING_LIMITS, cpu_seconds=math.ceil(1.5 * ratio * cpu) + 1)
    timeout = ceiling + 2.0
    run = timed_run(exercise, sources, check, timeout, sandboxed, limits)
    over = run.cpu_seconds > ratio * cpu or run.wall_seconds > ratio * wall + 0.5
    if over and run.returncode is not None:  # near the line: the slower of two reference runs
        with contextlib.suppress(Unanswered):
            again = measure_reference()
            cpu, wall = max(cpu, again[0]), max(wall, again[1])
    figures = (
        f"{run.cpu_seconds:.2f} CPU-s and {run.wall_seconds:.2f} s on the clock against the "
        f"reference's {cpu:.2f} and {wall:.2f} on {check.name}, loading your cells included"
    )
    if run.cpu_seconds > ratio * cpu:
        return CheckResult(name, False, f"too slow: {figures}; {speed.slow}")
    if run.returncode is None or run.wall_seconds > ratio * wall + 0.5:
        return CheckResult(
            name,
            False,
            f"too slow on the clock: {figures}; a timed run is one process that computes, and "
            f"time it spends waiting counts as time spent",
        )
    try:
        answers = collect_answers(run, 0, len(check.calls), timeout, timeout)
    except Unanswered as stop:
        return CheckResult(name, False, f"{stop.note} ({figures})")
    verdict = _judge_one(check, answers.outcomes) if answers.found else None
    if verdict is None or not verdict.passed:
        hint = verdict.hint if verdict else f"no function named {exercise.name} is defined"
        return CheckResult(name, False, f"wrong on {check.name}: {hint}")
    return CheckResult(name, True)


def timed_run(
    exercise: Exercise,
    sources: list[str],
    check: Check,
    timeout: float,
    sandboxed: bool,
    limits: bwrap.Limits,
) -> SessionRun:
    """A timed exercise's one timed call on `sources`, in a grading process of its own that loads
    them and answers in place, starting no other process or thread (its CPU time is all counted)."""
    return run_session(
        {**opening([exercise], sources, [[check]]), "one_process": True},
        [job(exercise, [check])],
        exercise.name,
        timeout,
        timeout,
        sandboxed,
        limits,
        mounted.mounts(exercise.name) if sandboxed else [],
    )
