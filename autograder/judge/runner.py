"""The judge and the grading API: a chapter's exercises checked against a student's code.

The student's code runs once in a grading process in the OS sandbox (`autograder.sandbox.host`, which
starts `autograder.sandbox.guest.child` and talks to it), and each exercise is checked in a copy of that
process; hidden-test cells check in this process. Checks and references are built here first and
judged here last.
"""

import dataclasses
from collections.abc import Callable
from pathlib import Path

from autograder.judge import answer_key, mounted
from autograder.judge.check import Check
from autograder.judge.exercises import EXERCISES, Exercise, chapter_exercises
from autograder.judge.notebook import cell_label, read_notebook, student_cells
from autograder.judge.session import (
    GRADING_LIMITS,
    NOTEBOOK_SECONDS,
    TIMEOUT_SECONDS,
    Unanswered,
    build_checks,
    collect_answers,
    job,
    judge,
    judge_answers,
    new_seed,
    opening,
)
from autograder.judge.timing import speed_in_process, speed_result
from autograder.judge.verdicts import ExerciseReport
from autograder.sandbox.guest.calls import run_call
from autograder.sandbox.host import bwrap
from autograder.sandbox.host.grading_process import SessionRun, run_session


def check_function(exercise: Exercise, fn: Callable, seed: int | None = None) -> ExerciseReport:
    """Run every check of `exercise` on `fn` in this process (used by hidden-test cells)."""
    seed = new_seed() if seed is None else seed
    checks = build_checks(exercise, seed)
    outcomes = [run_call(fn, call) for check in checks for call in check.calls]
    results = judge(checks, outcomes)
    if exercise.timed and all(result.passed for result in results):
        results.append(speed_in_process(exercise, fn, seed))
    return ExerciseReport(exercise.name, exercise.points, results, seed=seed, extra=exercise.extra)


def check_together(
    exercises: list[Exercise],
    sources: list[str],
    seed: int,
    timeout: float = TIMEOUT_SECONDS,
    sandboxed: bool = True,
    limits: bwrap.Limits = GRADING_LIMITS,
    load_timeout: float = NOTEBOOK_SECONDS,
    shown: list[bytes] | None = None,
    cells: list[int] | None = None,
) -> list[ExerciseReport]:
    """Check `exercises` (of one chapter and one environment) against `sources`, run once.

    One grading process in the OS sandbox (unless `sandboxed` is False) loads the student's code
    within `load_timeout` seconds; each exercise is then checked in a copy of it, within `timeout`
    seconds (`autograder.sandbox.guest.child`). Its checks and references are built here first, before
    any student code runs, and judged here last. What loading showed (untrusted JSON, see
    `autograder.sandbox.guest.outputs`) is appended to `shown` when it is given. `cells`: each
    source's number in the notebook, for the notes (None: counted among the sources).
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
        mounted.mounts(tuple(e.name for e in exercises)) if sandboxed else [],
    )
    if shown is not None:
        shown.append(run.shown)
    for index, (exercise, each, report) in enumerate(zip(exercises, checks, reports, strict=True)):
        if len(exercises) > 1 and index < len(run.answers) and run.answers[index] == "no copy":
            # no safe copy (threads the code started, say): checked by a process of its own
            reports[index] = check_together(
                [exercise], sources, seed, timeout, sandboxed, limits, load_timeout, cells=cells
            )[0]
            continue
        read_report(
            run, index, exercise, each, sources, report, timeout, load_timeout, sandboxed, cells
        )
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
    cells: list[int] | None = None,
) -> None:
    """Fill `report` from the `index`-th job of `run`: judged answers, or a note and a flag
    (`cells`: each source's number in the notebook, None: counted among the sources)."""
    expected = sum(len(check.calls) for check in checks)
    try:
        answers = collect_answers(run, index, expected, timeout, load_timeout)
    except Unanswered as stop:
        report.notes.append(stop.note)
        report.flags.append(stop.flag)
        return
    numbers = cells if cells is not None else range(1, len(sources) + 1)
    labels = [cell_label(number, source) for number, source in zip(numbers, sources, strict=True)]
    judge_answers(exercise, checks, answers, report, labels)
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
        mounted.mounts((exercise.name,)) if sandboxed else [],
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


def environments(exercises: list[Exercise]) -> list[list[Exercise]]:
    """`exercises` in groups graded by one process each, in order: one group per environment
    (NumPy or PyTorch; parts of PyTorch refused or not, `answer_key.REFUSING`)."""
    groups: dict[tuple[bool, bool], list[Exercise]] = {}
    for exercise in exercises:
        key = (exercise.torch, exercise.name in answer_key.REFUSING)
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
    cells: list[int] | None = None,
) -> GradedRun:
    """Grade every exercise of `chapter` against `sources`: the student's code runs once per
    environment the chapter's exercises need (`environments`: one, or two for chapter 08).

    The environments are graded one after the other, so no two of one submission's grading
    processes run at once (one holding later references could otherwise signal them to the
    other). One `seed` (chosen now unless given) draws the hidden cases of every exercise. What
    the cells showed (with `show`) is the run's with PyTorch and nothing refused, when the
    chapter has one; b"" without. `cells`: each source's number in the notebook, for the notes.
    """
    exercises = chapter_exercises(chapter)
    seed = new_seed() if seed is None else seed
    groups = environments(exercises)
    freest = [
        index
        for index, group in enumerate(groups)
        if group[0].torch and group[0].name not in answer_key.REFUSING
    ]
    shown_by = (freest or [0])[0] if show else -1  # the group whose process keeps what cells show
    by_name, shown = {}, []
    for index, group in enumerate(groups):
        sink = shown if index == shown_by else None
        graded = check_together(group, sources, seed, sandboxed=sandboxed, shown=sink, cells=cells)
        for report in graded:
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
    cells = student_cells(read_notebook(path), names, released)
    sources = [source for _, source in cells]
    numbers = [number for number, _ in cells]
    return grade_run(chapter, sources, seed, sandboxed, show=False, cells=numbers).reports
