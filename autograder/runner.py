"""The judge and the grading API: a chapter's exercises checked against a student's code.

Each exercise runs in a new grading process in the OS sandbox (`autograder.wall`, which starts
`autograder.inside.child` and reads back its answers), or in this process for hidden-test cells;
its checks and references are built here first and judged here last.
"""

import contextlib
import dataclasses
import importlib
import marshal
import math
import pickle
import secrets
import time
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from autograder.exercises import EXERCISES, Exercise, chapter_exercises
from autograder.inside.child import EXIT_STATUS
from autograder.inside.harness import Check, CheckFailed, Outcome, run_call
from autograder.model import CheckResult, ExerciseReport, Flag, event_flag
from autograder.notebook import read_notebook, student_sources
from autograder.wall import answer_key, sandbox
from autograder.wall.answers import Answers, read_answers, short_message
from autograder.wall.grading_process import ChildRun, run_child

TIMEOUT_SECONDS = 30.0  # per exercise: loading the student's cells and every call
NOTES_SHOWN = 5  # statements that failed while loading, quoted in the report; the rest counted
GRADING_LIMITS = sandbox.Limits()
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
    from autograder.references import reference_solutions

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


def build_request(
    exercise: Exercise, sources: list[str], checks: list[Check], one_process: bool = False
) -> bytes:
    """What the grading process is sent: the preamble, the student's sources, references, the calls.

    one_process: a timed run, whose process may start no other process or thread.
    """
    return pickle.dumps(
        {
            "preamble": exercise.preamble,
            "sources": sources,
            "references": compiled_references(exercise),
            "function": exercise.name,
            "refuse_attention": exercise.name in answer_key.ATTENTION_EXERCISES,
            "one_process": one_process,
            "calls": [call for check in checks for call in check.calls],
        }
    )


def check_exit(run: ChildRun, timeout: float) -> None:
    """Unanswered when the grading process left no answers: it timed out, ran out of memory or crashed.

    Memory or crash is told by the exit status (`autograder.inside.child.EXIT_STATUS`); what it printed is
    only quoted in the note.
    """
    if run.returncode is None:
        raise Unanswered(f"timed out after {timeout:g} s: is there an endless loop?", Flag.TIMEOUT)
    if run.returncode == 0 and run.result:
        return
    tail = run.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
    said = [event for event, status in EXIT_STATUS.items() if status == run.returncode]
    raise Unanswered(
        f"the grading process stopped with exit code {run.returncode} before answering "
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


def collect_answers(run: ChildRun, timeout: float, expected: int) -> Answers:
    """The answers of a finished grading process; Unanswered saying why there are none."""
    check_exit(run, timeout)
    try:
        return read_answers(run.result, expected)
    except Exception as error:  # anything malformed is the submission's doing
        raise Unanswered(
            f"the grading process returned malformed answers ({str(error)[:200]})", Flag.MALFORMED
        ) from None


def check_source(
    exercise: Exercise,
    sources: list[str],
    timeout: float = TIMEOUT_SECONDS,
    seed: int | None = None,
    sandboxed: bool = True,
    limits: sandbox.Limits = GRADING_LIMITS,
) -> ExerciseReport:
    """Run every check of `exercise` on the function defined by `sources`, in a new grading process.

    The process runs in the OS sandbox (`autograder.wall.sandbox`) unless `sandboxed` is False.
    """
    report = ExerciseReport(
        exercise.name,
        exercise.points,
        seed=new_seed() if seed is None else seed,
        extra=exercise.extra,
    )
    checks = build_checks(exercise, report.seed)  # references first, before any student code runs
    request = build_request(exercise, sources, checks)
    run = run_child(request, exercise.name, timeout, sandboxed, limits)
    try:
        answers = collect_answers(run, timeout, sum(len(check.calls) for check in checks))
    except Unanswered as stop:
        report.notes.append(stop.note)
        report.flags.append(stop.flag)
        return report
    judge_answers(exercise, checks, answers, report)
    if exercise.timed and report.results and all(r.passed for r in report.results):
        report.results.append(speed_result(exercise, sources, report.seed, sandboxed))
    return report


def speed_name(exercise: Exercise) -> str:
    """The name of a timed exercise's speed check, as reports show it."""
    return f"fast enough: at most {exercise.checks_module.SPEED_RATIO:g}x the reference's CPU time"


def speed_result(exercise: Exercise, sources: list[str], seed: int, sandboxed: bool) -> CheckResult:
    """A timed exercise's speed check: its timed call made by the reference and by the student's code.

    Each run is a grading process of its own that makes that one call and may start no other
    process or thread; its CPU time is what the kernel counted for the whole sandbox, read from
    outside (`autograder.wall.grading_process`), so nothing inside can change it. Its wall time is
    held to the same ratio: a run of one process that computes takes about as long on the clock as
    on the CPU, and one that waits (for work done somewhere else, say by another sandbox) is as slow
    as one that computes. Both include loading the student's cells, which is why the limit is a
    generous ratio: an algorithm of the wrong order is many times past it, machine noise a small
    fraction of it. A student's run near the line has the reference timed again and the slower of
    the two counts (fair before strict); one well past it is stopped there (its limits).
    """
    from autograder.references import reference_solutions

    name, module = speed_name(exercise), exercise.checks_module
    ratio = module.SPEED_RATIO
    check = exercise.timed_check(seed)
    reference = build_request(
        exercise, [reference_solutions(exercise.chapter)[exercise.name]], [check], one_process=True
    )

    def measure_reference() -> tuple[float, float]:
        for _ in range(2):  # a reference run that fails is the machine's doing: once more
            run = run_child(reference, exercise.name, TIMEOUT_SECONDS, sandboxed, GRADING_LIMITS)
            if run.returncode == 0 and run.result:
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
    request = build_request(exercise, sources, [check], one_process=True)
    timeout = ceiling + 2.0
    run = run_child(request, exercise.name, timeout, sandboxed, limits)
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
        answers = collect_answers(run, timeout, len(check.calls))
    except Unanswered as stop:
        return CheckResult(name, False, f"{stop.note} ({figures})")
    verdict = _judge_one(check, answers.outcomes) if answers.found else None
    if verdict is None or not verdict.passed:
        hint = verdict.hint if verdict else f"no function named {exercise.name} is defined"
        return CheckResult(name, False, f"wrong on {check.name}: {hint}")
    return CheckResult(name, True)


def grade_sources(
    chapter: str,
    sources: list[str],
    workers: int = 2,
    seed: int | None = None,
    sandboxed: bool = True,
) -> list[ExerciseReport]:
    """Grade every exercise of `chapter` against `sources`, one new grading process (sandbox) each.

    One `seed` (chosen now unless given) draws the hidden cases of every exercise of this run.
    """
    exercises = chapter_exercises(chapter)
    seed = new_seed() if seed is None else seed
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(
            pool.map(
                lambda exercise: check_source(exercise, sources, seed=seed, sandboxed=sandboxed),
                exercises,
            )
        )


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
