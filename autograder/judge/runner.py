"""The judge and the grading API: a chapter's exercises checked against a student's code.

The student's code runs once in a grading process in the OS sandbox (`autograder.wall`, which
starts `autograder.sandbox.guest.child` and talks to it), and each exercise is checked in a copy of that
process; hidden-test cells check in this process. Checks and references are built here first and
judged here last.
"""

import contextlib
import dataclasses
import importlib
import marshal
import math
import os
import secrets
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

from autograder.judge import answer_key
from autograder.judge.check import Check, CheckFailed
from autograder.judge.exercises import EXERCISES, Exercise, chapter_exercises
from autograder.judge.notebook import read_notebook, student_sources
from autograder.judge.outcomes import Answers, read_answers, short_message
from autograder.judge.verdicts import CheckResult, ExerciseReport, Flag, event_flag
from autograder.sandbox.guest.calls import Outcome, run_call
from autograder.sandbox.guest.protocol import EXIT_STATUS
from autograder.sandbox.host import bwrap
from autograder.sandbox.host.grading_process import SessionRun, run_session


def _seconds(variable: str, default: float) -> float:
    """A grading budget from the environment variable `variable` (seconds, 0 < s < 86400), else `default`."""
    given = os.environ.get(variable, str(default))
    try:
        seconds = float(given)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds < 86_400:
        raise ValueError(
            f"{variable} must be a number of seconds between 0 and 86400, not {given!r}"
        )
    return seconds


# loading the student's code, once per grading process
NOTEBOOK_SECONDS = _seconds("PROOF_LM_NOTEBOOK_SECONDS", 300)
# per exercise: every call of its checks, in a copy of the loaded code
TIMEOUT_SECONDS = _seconds("PROOF_LM_EXERCISE_SECONDS", 30)
NOTES_SHOWN = 5  # statements that failed while loading, quoted in the report; the rest counted
# CPU time per process: loading may take the notebook's whole budget (a copy starts its count at 0)
GRADING_LIMITS = bwrap.Limits(cpu_seconds=math.ceil(NOTEBOOK_SECONDS + TIMEOUT_SECONDS))
LIBRARY_CALL = (
    "the solution calls an implementation of this exercise that the environment ships (the "
    "library's, the grader's, or PyTorch's finished attention or transformer layers), which "
    "grading does not allow (the answer-key rule): it earns 0"
)
NO_PYTORCH_CELL = "a cell that uses PyTorch failed: NumPy exercises are graded without PyTorch"
NO_PYTORCH = (
    "PyTorch is not available while a NumPy exercise is graded (the course's rules: NumPy "
    "exercises use NumPy only); the notebook's visible tests say when a function reaches PyTorch"
)


def judge(checks: list[Check], outcomes: list[Outcome]) -> list[CheckResult]:
    """Apply each check's judge to its slice of the outcomes."""
    results, position = [], 0
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for check in checks:
            results.append(_judge_one(check, outcomes[position : position + len(check.calls)]))
            position += len(check.calls)
    return results


def _judge_one(check: Check, mine: list[Outcome]) -> CheckResult:
    """One check's verdict; a judge that cannot even read the answer counts it as failed."""
    try:
        check.judge(mine)
        return CheckResult(check.name, True)
    except CheckFailed as failure:
        return CheckResult(check.name, False, str(failure))
    except Exception as error:
        return CheckResult(
            check.name, False, f"the answer could not be judged ({type(error).__name__}: {error})"
        )


def new_seed() -> int:
    """A seed for one grading run's hidden cases, chosen when grading starts."""
    return secrets.randbits(32)


def build_checks(exercise: Exercise, seed: int) -> list[Check]:
    """The exercise's checks with their references for `seed`, built with warnings silenced."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return exercise.checks(seed)


def check_function(exercise: Exercise, fn: Callable, seed: int | None = None) -> ExerciseReport:
    """Run every check of `exercise` on `fn` in this process (used by hidden-test cells)."""
    seed = new_seed() if seed is None else seed
    checks = build_checks(exercise, seed)
    outcomes = [run_call(fn, call) for check in checks for call in check.calls]
    results = judge(checks, outcomes)
    if exercise.timed and all(result.passed for result in results):
        results.append(speed_in_process(exercise, fn, seed))
    return ExerciseReport(exercise.name, exercise.points, results, seed=seed, extra=exercise.extra)


def speed_in_process(exercise: Exercise, fn: Callable, seed: int) -> CheckResult:
    """The speed check as a hidden-test cell makes it in the student's own kernel: this process's
    CPU time for `fn` against the library's version (`SPEED_ANCHOR`), as fast as the grader's
    reference. Only advice: code in the kernel could change this clock; the grade's is outside."""
    module = exercise.checks_module
    check = exercise.timed_check(seed)
    anchor_module, anchor_name = module.SPEED_ANCHOR.split(":")
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
    if ratio > module.SPEED_RATIO:
        return CheckResult(
            speed_name(exercise),
            False,
            f"too slow: {end - middle:.2f} CPU-s against {middle - start:.2f} for the library's "
            f"({ratio:.1f}x) on {check.name}; {module.SLOW}",
        )
    return CheckResult(speed_name(exercise), True)


class Unanswered(Exception):
    """The grading process gave no answers to judge: why (a note for the student) and the flag."""

    def __init__(self, note: str, flag: Flag) -> None:
        super().__init__(note)
        self.note, self.flag = note, flag


def reference_sources(exercise: Exercise) -> dict[str, str]:
    """The reference solutions of the chapter's exercises before this one (from the source notebook).

    Only the earlier ones: an exercise may call an earlier one (one bug costs one exercise), but a
    later one often generalises it (label smoothing at eps = 0 is cross_entropy, one head of
    multi_head_attention is causal_attention), so its reference would be an answer key; a later
    exercise's name keeps the student's own function.
    """
    from autograder.judge.references import reference_solutions

    solutions = reference_solutions(exercise.chapter)
    names = [e.name for e in chapter_exercises(exercise.chapter)]
    earlier = names[: names.index(exercise.name)]
    return {name: source for name, source in solutions.items() if name in earlier}


def compiled_references(exercise: Exercise) -> dict[str, bytes]:
    """The chapter's earlier references as marshalled code, compiled here: no source, no docstring.

    optimize=2 drops docstrings (and asserts); the grading process never receives the source text,
    so nothing of it is in its memory for student code to read.
    """
    return {
        name: marshal.dumps(compile(source, "<reference>", "exec", optimize=2, dont_inherit=True))
        for name, source in reference_sources(exercise).items()
    }


def job(exercise: Exercise, checks: list[Check]) -> dict:
    """What the grading process is sent for one exercise: its name, the earlier references, the calls."""
    return {
        "function": exercise.name,
        "references": compiled_references(exercise),
        "calls": [call for check in checks for call in check.calls],
    }


def opening(exercises: list[Exercise], sources: list[str], checks: list[list[Check]]) -> dict:
    """What the grading process is sent first: the preamble, the student's sources, how to load them.

    The probes the jobs will name are resolved before the student's code runs; the answer-key
    guard on PyTorch's attention layers is installed when any of `exercises` needs it.
    """
    return {
        "preamble": exercises[0].preamble,
        "sources": sources,
        "probes": sorted(
            {c.probe for each in checks for check in each for c in check.calls if c.probe}
        ),
        "refuse_attention": any(e.name in answer_key.ATTENTION_EXERCISES for e in exercises),
        "label": ", ".join(e.name for e in exercises),
        "one_process": False,
        "show": False,  # keep what each cell shows (`autograder.sandbox.guest.outputs`)
    }


def unanswered(
    run: SessionRun, index: int, timeout: float, load_timeout: float
) -> Unanswered | None:
    """Why the `index`-th job of `run` has no answers to read (None when it has some)."""
    tail = run.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
    if not run.loaded:
        if run.malformed:
            return Unanswered("the grading process sent malformed data", Flag.MALFORMED)
        if run.returncode is None:
            return Unanswered(
                f"the notebook's code did not finish loading within {load_timeout:g} s (it runs "
                f"once, before any exercise is checked): is there an endless loop, or training "
                f"too long for grading, at the top level?",
                Flag.TIMEOUT,
            )
        status = run.returncode
    elif index == len(run.answers) and run.returncode is not None:
        status = run.returncode  # it ended while answering this one, in the process itself
    elif index >= len(run.answers):
        return Unanswered(
            "the grading process stopped before this exercise was checked "
            f"{short_message(tail[0])}".strip(),
            Flag.CRASHED,
        )
    elif run.answers[index] is None:
        return Unanswered(f"timed out after {timeout:g} s: is there an endless loop?", Flag.TIMEOUT)
    elif isinstance(run.answers[index], str):
        return Unanswered(
            "the grading process could not start a copy of itself to check this exercise: the "
            "code's own processes or memory left none to spare, or its threads were running",
            Flag.CRASHED,
        )
    elif isinstance(run.answers[index], int):
        status = run.answers[index]
    else:
        return None
    said = [event for event, code in EXIT_STATUS.items() if code == status]
    return Unanswered(
        f"the grading process stopped with exit code {status} before answering "
        f"{short_message(tail[0])}".strip(),
        event_flag(said) or Flag.CRASHED,
    )


def answer_flags(answers: Answers) -> list[Flag]:
    """What the code did that an honest one does not, from the classes of the errors it raised.

    Calling the library's implementation at load is no flag (a demonstration cell may); in a
    graded call it is.
    """
    raised = {event_flag(o.error_bases) for o in answers.outcomes if o.error is not None}
    raised |= {event_flag(p.outcome.error_bases) for p in answers.problems} - {Flag.ANSWER_KEY}
    return [flag for flag in Flag if flag in raised]


def judge_answers(
    exercise: Exercise, checks: list[Check], answers: Answers, report: ExerciseReport
) -> None:
    """Fill `report` from the answers: flags, notes on loading, and each check's verdict."""
    report.flags.extend(answer_flags(answers))
    report.notes.extend(str(problem) for problem in answers.problems[:NOTES_SHOWN])
    if len(answers.problems) > NOTES_SHOWN:
        more = len(answers.problems) - NOTES_SHOWN
        report.notes.append(f"and {more} more top-level statements failed while loading")
    if Flag.ANSWER_KEY in report.flags:
        report.notes.append(LIBRARY_CALL)
    errors = [o.error_bases for o in answers.outcomes] + [
        p.outcome.error_bases for p in answers.problems
    ]
    if any("NoPyTorch" in bases for bases in errors):
        report.notes.append(NO_PYTORCH)
    if not answers.found:
        report.notes.append(f"no function named {exercise.name} is defined")
        report.results.append(
            CheckResult("the function exists", False, f"define a function named {exercise.name}")
        )
        return
    report.results = judge(checks, answers.outcomes)
    if any("NoPyTorch" in p.outcome.error_bases for p in answers.problems):
        for result in report.results:  # a name left undefined by a cell that imports PyTorch
            if not result.passed and "NameError" in result.hint:
                result.hint += f" ({NO_PYTORCH_CELL})"


def collect_answers(
    run: SessionRun, index: int, expected: int, timeout: float, load_timeout: float
) -> Answers:
    """The answers of the `index`-th job of a finished grading process; Unanswered saying why there are none."""
    stop = unanswered(run, index, timeout, load_timeout)
    if stop is not None:
        raise stop
    try:
        return read_answers(run.answers[index], expected)
    except Exception as error:  # anything malformed is the submission's doing
        raise Unanswered(
            f"the grading process returned malformed answers ({str(error)[:200]})", Flag.MALFORMED
        ) from None


def check_together(
    exercises: list[Exercise],
    sources: list[str],
    seed: int,
    timeout: float = TIMEOUT_SECONDS,
    sandboxed: bool = True,
    limits: bwrap.Limits = GRADING_LIMITS,
    load_timeout: float = NOTEBOOK_SECONDS,
    shown: list[bytes] | None = None,
) -> list[ExerciseReport]:
    """Check `exercises` (of one chapter and one environment) against `sources`, run once.

    One grading process in the OS sandbox (unless `sandboxed` is False) loads the student's code
    within `load_timeout` seconds; each exercise is then checked in a copy of it, within `timeout`
    seconds (`autograder.sandbox.guest.child`). Its checks and references are built here first, before
    any student code runs, and judged here last. What loading showed (untrusted JSON, see
    `autograder.sandbox.guest.outputs`) is appended to `shown` when it is given.
    """
    reports = [ExerciseReport(e.name, e.points, seed=seed, extra=e.extra) for e in exercises]
    checks = [build_checks(exercise, seed) for exercise in exercises]
    run = run_session(
        {**opening(exercises, sources, checks), "show": shown is not None},
        [job(exercise, each) for exercise, each in zip(exercises, checks, strict=True)],
        ", ".join(e.name for e in exercises),
        load_timeout,
        timeout,
        sandboxed,
        limits,
        answer_key.mounts(tuple(e.name for e in exercises)) if sandboxed else [],
    )
    if shown is not None:
        shown.append(run.shown)
    for index, (exercise, each, report) in enumerate(zip(exercises, checks, reports, strict=True)):
        if len(exercises) > 1 and index < len(run.answers) and run.answers[index] == "no copy":
            # no safe copy (threads the code started, say): checked by a process of its own
            reports[index] = check_together(
                [exercise], sources, seed, timeout, sandboxed, limits, load_timeout
            )[0]
            continue
        read_report(run, index, exercise, each, sources, report, timeout, load_timeout, sandboxed)
    return reports


def read_report(
    run: SessionRun,
    index: int,
    exercise: Exercise,
    checks: list[Check],
    sources: list[str],
    report: ExerciseReport,
    timeout: float,
    load_timeout: float,
    sandboxed: bool,
) -> None:
    """Fill `report` from the `index`-th job of `run`: judged answers, or a note and a flag."""
    expected = sum(len(check.calls) for check in checks)
    try:
        answers = collect_answers(run, index, expected, timeout, load_timeout)
    except Unanswered as stop:
        report.notes.append(stop.note)
        report.flags.append(stop.flag)
        return
    judge_answers(exercise, checks, answers, report)
    if exercise.timed and report.results and all(r.passed for r in report.results):
        report.results.append(speed_result(exercise, sources, report.seed, sandboxed))


def check_source(
    exercise: Exercise,
    sources: list[str],
    timeout: float = TIMEOUT_SECONDS,
    seed: int | None = None,
    sandboxed: bool = True,
    limits: bwrap.Limits = GRADING_LIMITS,
    load_timeout: float = NOTEBOOK_SECONDS,
) -> ExerciseReport:
    """Run every check of `exercise` on the function defined by `sources` (see `check_together`)."""
    seed = new_seed() if seed is None else seed
    (report,) = check_together([exercise], sources, seed, timeout, sandboxed, limits, load_timeout)
    return report


def check_each(
    exercise: Exercise,
    submissions: list[list[str]],
    seeds: list[int],
    timeout: float = TIMEOUT_SECONDS,
    sandboxed: bool = True,
    limits: bwrap.Limits = GRADING_LIMITS,
    load_timeout: float = NOTEBOOK_SECONDS,
    preload: tuple[str, ...] = (),
) -> list[ExerciseReport]:
    """Check `exercise` against each of several submissions (the sources of each, its seed) in one
    grading process: each is loaded and checked in a copy of its own, forked before any of them
    ran, within `timeout` seconds, loading included. The modules named in `preload` are imported
    once, before the first fork (what every copy would import on its own: PyTorch's optimizers
    bring 800 modules).

    For files of one author (the course's catalogue of implementations), whose cost is starting a
    process (and importing PyTorch) per file: the copies share the sandbox's /tmp, home and uid,
    so a file that leaves a process behind could still reach the next one; several students'
    submissions are graded with `check_source`, one sandbox each. Without the sandbox there is no
    pid 1 to end what a copy started, so each file is graded alone. A submission without answers
    here (a crash, a timeout, no copy: anything but the plain path) is checked again by
    `check_source` (`load_timeout` seconds to load), so that every report is the one it would give.
    """
    if len(submissions) != len(seeds):
        raise ValueError(
            f"expected one seed per submission: {len(submissions)} submissions, {len(seeds)} seeds"
        )
    if not sandboxed:
        return [
            check_source(exercise, sources, timeout, seed, False, limits, load_timeout)
            for sources, seed in zip(submissions, seeds, strict=True)
        ]
    if not all(name.isidentifier() for module in preload for name in module.split(".")):
        raise ValueError(f"expected module names to preload, got {preload!r}")
    checks = [build_checks(exercise, seed) for seed in seeds]
    jobs = [
        {**job(exercise, each), "sources": sources}
        for each, sources in zip(checks, submissions, strict=True)
    ]
    run = run_session(
        opening([exercise], [f"import {module}" for module in preload], checks),
        jobs,
        exercise.name,
        load_timeout,
        timeout,
        sandboxed,
        limits,
        answer_key.mounts((exercise.name,)) if sandboxed else [],
    )
    reports = []
    for index, (sources, seed, each) in enumerate(zip(submissions, seeds, checks, strict=True)):
        if run.malformed or index >= len(run.answers) or not isinstance(run.answers[index], bytes):
            reports.append(
                check_source(exercise, sources, timeout, seed, sandboxed, limits, load_timeout)
            )
            continue
        report = ExerciseReport(exercise.name, exercise.points, seed=seed, extra=exercise.extra)
        read_report(run, index, exercise, each, sources, report, timeout, timeout, sandboxed)
        reports.append(report)
    return reports


def speed_name(exercise: Exercise) -> str:
    """The name of a timed exercise's speed check, as reports show it."""
    return f"fast enough: at most {exercise.checks_module.SPEED_RATIO:g}x the reference's CPU time"


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

    name, module = speed_name(exercise), exercise.checks_module
    ratio = module.SPEED_RATIO
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
        return CheckResult(name, False, f"too slow: {figures}; {module.SLOW}")
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
        answer_key.mounts(exercise.name) if sandboxed else [],
    )


def environments(exercises: list[Exercise]) -> list[list[Exercise]]:
    """`exercises` in groups graded by one process each, in order: one group per environment
    (NumPy or PyTorch; PyTorch's attention layers refused or not)."""
    groups: dict[tuple[bool, bool], list[Exercise]] = {}
    for exercise in exercises:
        key = (exercise.torch, exercise.name in answer_key.ATTENTION_EXERCISES)
        groups.setdefault(key, []).append(exercise)
    return list(groups.values())


@dataclasses.dataclass
class GradedRun:
    """A submission's reports, and what loading its cells showed (untrusted JSON, or b"")."""

    reports: list[ExerciseReport]
    shown: bytes


def grade_run(
    chapter: str,
    sources: list[str],
    seed: int | None = None,
    sandboxed: bool = True,
    show: bool = True,
) -> GradedRun:
    """Grade every exercise of `chapter` against `sources`: the student's code runs once per
    environment the chapter's exercises need (`environments`: one, or two for chapter 08).

    The environments are graded one after the other, so no two of one submission's grading
    processes run at once (one holding later references could otherwise signal them to the
    other). One `seed` (chosen now unless given) draws the hidden cases of every exercise. What
    the cells showed (with `show`) is the run's with PyTorch and nothing refused, when the
    chapter has one; b"" without.
    """
    exercises = chapter_exercises(chapter)
    seed = new_seed() if seed is None else seed
    groups = environments(exercises)
    freest = [
        index
        for index, group in enumerate(groups)
        if group[0].torch and group[0].name not in answer_key.ATTENTION_EXERCISES
    ]
    shown_by = (freest or [0])[0] if show else -1  # the group whose process keeps what cells show
    by_name, shown = {}, []
    for index, group in enumerate(groups):
        sink = shown if index == shown_by else None
        for report in check_together(group, sources, seed, sandboxed=sandboxed, shown=sink):
            by_name[report.exercise] = report
    return GradedRun([by_name[exercise.name] for exercise in exercises], (shown or [b""])[0])


def grade_sources(
    chapter: str, sources: list[str], seed: int | None = None, sandboxed: bool = True
) -> list[ExerciseReport]:
    """Every exercise of `chapter` graded against `sources` (see `grade_run`)."""
    return grade_run(chapter, sources, seed, sandboxed, show=False).reports


def grade_notebook(
    path: str | Path,
    chapter: str | None = None,
    seed: int | None = None,
    sandboxed: bool = True,
    released: dict | None = None,
) -> list[ExerciseReport]:
    """Grade a chapter notebook by the student's code cells (see `student_sources`); the chapter defaults to the file name."""
    path = Path(path)
    chapter = chapter or path.stem
    if not chapter_exercises(chapter):
        chapters = sorted({exercise.chapter for exercise in EXERCISES.values()})
        raise ValueError(
            f"no graded chapter called {chapter!r}; pass --chapter, one of {', '.join(chapters)}"
        )
    names = {exercise.name for exercise in chapter_exercises(chapter)}
    sources = student_sources(read_notebook(path), names, released)
    return grade_sources(chapter, sources, seed=seed, sandboxed=sandboxed)
