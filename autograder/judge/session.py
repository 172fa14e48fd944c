"""One grading session's plumbing: its limits, what the grading process is sent, and its answers read and judged.

The trusted side of a run of student code: the checks and compiled references each exercise's copy
is sent (`opening`, `job`), then the answers that come back, every size checked
(`collect_answers`, `autograder.judge.outcomes`), judged here (`judge_answers`) or turned into a
note and a flag (`Unanswered`)."""

import marshal
import math
import os
import secrets
import warnings

import numpy as np

from autograder.judge import answer_key
from autograder.judge.check import Check, CheckFailed
from autograder.judge.exercises import Exercise, chapter_exercises
from autograder.judge.outcomes import Answers, read_answers, short_message
from autograder.judge.verdicts import CheckResult, ExerciseReport, Flag, event_flag
from autograder.sandbox.guest.protocol import EXIT_STATUS, Outcome
from autograder.sandbox.host import bwrap
from autograder.sandbox.host.grading_process import SessionRun


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


NO_PRECISION_CELL = (
    "a cell that uses decimal, mpmath or sympy failed: NumPy exercises are graded without "
    "arbitrary-precision arithmetic"
)


NO_PRECISION = (
    "arbitrary-precision arithmetic (decimal, mpmath, sympy) is not available while a NumPy "
    "exercise is graded (the course's rules: NumPy exercises use NumPy only); the notebook's "
    "visible tests say when a function reaches it"
)


# what a NumPy exercise's sandbox lacks: the stand-in's error, the report's note, the cell's note
ABSENT = (
    ("NoPyTorch", NO_PYTORCH, NO_PYTORCH_CELL),
    ("NoExtendedPrecision", NO_PRECISION, NO_PRECISION_CELL),
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
        # the exercises the attention guard names ("" when none of `exercises` needs it)
        "refuse_attention": ", ".join(
            e.name for e in exercises if e.name in answer_key.ATTENTION_EXERCISES
        ),
        # no execve: a NumPy exercise's sandbox has no arbitrary precision and a fresh Python would
        # run without a refusal; PyTorch's free environment may compile
        "no_programs": any(not e.torch or e.name in answer_key.REFUSING for e in exercises),
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
        return Unanswered(
            f"timed out after {timeout:g} s: is there an endless loop, or work that grows far "
            "faster than the input (the checks try large inputs too)?",
            Flag.TIMEOUT,
        )
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
    exercise: Exercise,
    checks: list[Check],
    answers: Answers,
    report: ExerciseReport,
    cells: list[str],
) -> None:
    """Fill `report` from the answers: flags, notes on loading (each failed statement's cell named
    as `cells` names the sources, see `autograder.judge.notebook.cell_label`), each check's verdict."""
    report.flags.extend(answer_flags(answers))
    report.loading.extend(problem.note(cells) for problem in answers.problems[:NOTES_SHOWN])
    if len(answers.problems) > NOTES_SHOWN:
        more = len(answers.problems) - NOTES_SHOWN
        report.loading.append(f"and {more} more top-level statements failed while loading")
    if Flag.ANSWER_KEY in report.flags:
        report.notes.append(LIBRARY_CALL)
    errors = [o.error_bases for o in answers.outcomes] + [
        p.outcome.error_bases for p in answers.problems
    ]
    for error, note, _ in ABSENT:
        if any(error in bases for bases in errors):
            report.notes.append(note)
    if not answers.found:
        report.notes.append(f"no function named {exercise.name} is defined")
        report.results.append(
            CheckResult("the function exists", False, f"define a function named {exercise.name}")
        )
        return
    report.results = judge(checks, answers.outcomes)
    for error, _, cell in ABSENT:
        if any(error in p.outcome.error_bases for p in answers.problems):
            for result in report.results:  # a name left undefined by a cell that imports it
                if not result.passed and "NameError" in result.hint:
                    result.hint += f" ({cell})"


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
