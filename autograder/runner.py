"""Run an exercise's checks: in this process (hidden-test cells) or in a new grading process in the OS sandbox."""

import contextlib
import io
import json
import os
import pickle
import secrets
import select
import signal
import subprocess
import sys
import time
import warnings
import zipfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from autograder import answer_key, sandbox
from autograder.exercises import Exercise
from autograder.harness import Check, CheckFailed, Outcome, run_call
from autograder.notebook import PARSING
from autograder.plain import decode

TIMEOUT_SECONDS = 30.0  # per exercise: loading the student's cells and every call
GRADING_LIMITS = sandbox.Limits()
TAMPERING = {
    "tried to exit the interpreter",
    "returned an object that is not plain data",
    "malformed answers",
    "called the library's implementation of the exercise",
}


@dataclass
class CheckResult:
    """The verdict of one check."""

    name: str
    passed: bool
    hint: str = ""


@dataclass
class ExerciseReport:
    """All check verdicts for one exercise, and the points they earn (all or nothing)."""

    exercise: str
    points: int
    results: list[CheckResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # problems loading the code, timeouts, crashes
    flags: list[str] = field(default_factory=list)  # reasons an instructor should look
    seed: int | None = None  # the grading run's seed for the hidden cases (replay with --seed)

    @property
    def passed(self) -> bool:
        """True when there were checks and every one passed."""
        return bool(self.results) and all(result.passed for result in self.results)

    @property
    def tampered(self) -> bool:
        """True when the grading process caught the code doing what no honest solution does."""
        return bool(TAMPERING & set(self.flags))

    @property
    def earned(self) -> int:
        """Points earned: all of them when every check passed and nothing was tampered with, else none."""
        return self.points if self.passed and not self.tampered else 0


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
    return ExerciseReport(exercise.name, exercise.points, judge(checks, outcomes), seed=seed)


JSON_LIMIT = 4 * 1024**2  # bytes of the answers' structure (arrays travel apart from it)
RESULT_LIMIT = 64 * 1024**2  # bytes of answers a grading process may send
PRINT_LIMIT = (
    64 * 1024
)  # bytes of its stdout / stderr the parent keeps (the rest is read and dropped)


def _drain(fd: int, limit: int, deadline: float) -> bytes:
    """Read a pipe until it closes or `deadline` passes, keeping at most `limit` bytes."""
    kept, size = [], 0
    try:
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                break
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            if size < limit:
                kept.append(chunk[: limit - size])
                size += len(kept[-1])
    finally:
        os.close(fd)
    return b"".join(kept)


def _read_result(data: bytes, expected: int) -> dict:
    """Decode the grading process's answers, trusting nothing about their shape or size."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = archive.infolist()
        if any(m.compress_type != zipfile.ZIP_STORED or m.file_size > len(data) for m in members):
            raise ValueError("compressed or oversized members")
    with PARSING, np.load(io.BytesIO(data), allow_pickle=False) as stored:
        arrays = {key: stored[key] for key in stored.files}
    text = arrays.pop("__json__")
    if text.size > JSON_LIMIT:
        raise ValueError(f"{text.size} bytes of answers' structure")
    summary = decode(json.loads(text.tobytes().decode()), arrays)
    outcomes = []
    for raw in summary["outcomes"]:
        outcome = Outcome(**raw)
        if not (outcome.error is None or isinstance(outcome.error, str)):
            raise ValueError("malformed outcome")
        outcome.error_bases = tuple(str(base) for base in outcome.error_bases)
        outcomes.append(outcome)
    if summary["found"] and len(outcomes) != expected:
        raise ValueError(f"{len(outcomes)} answers for {expected} calls")
    return {
        "found": bool(summary["found"]),
        "problems": [str(p)[:500] for p in summary["problems"]][:50],
        "outcomes": outcomes,
    }


def _behaviour_flags(problems: list[str], outcomes: list[Outcome]) -> list[str]:
    """What the submission did that an honest one does not: exit, exhaust memory, return objects."""
    flags = []
    if any("SystemExit" in p or "KeyboardInterrupt" in p for p in problems) or any(
        o.error == "BaseException" for o in outcomes
    ):
        flags.append("tried to exit the interpreter")
    if any("MemoryError" in p for p in problems) or any(o.error == "MemoryError" for o in outcomes):
        flags.append("memory limit")
    if any(o.error == "NotPlain" for o in outcomes):
        flags.append("returned an object that is not plain data")
    if any(o.error == "AnswerKeyError" for o in outcomes):  # in a graded call, not at load
        flags.append("called the library's implementation of the exercise")
    return flags


@dataclass
class ChildRun:
    """What one run of the grading process left: its exit status, answers and (capped) output."""

    returncode: int | None
    result: bytes
    stderr: bytes


def reference_sources(exercise: Exercise) -> dict[str, str]:
    """The reference solutions of the chapter's other exercises (from the source notebook)."""
    from autograder.references import reference_solutions

    solutions = reference_solutions(exercise.chapter)
    return {name: source for name, source in solutions.items() if name != exercise.name}


def _run_child(
    request: bytes, exercise: Exercise, timeout: float, sandboxed: bool, limits: sandbox.Limits
) -> ChildRun:
    """Start the grading process (in the OS sandbox unless told not to), feed it, read it, end it."""
    argv = [sys.executable, "-I", "-B", "-m", "autograder.child"]
    with sandbox.private_dir("proof-lm-grade-") as home:
        read_end, write_end = os.pipe()
        errors_read, errors_write = os.pipe()
        argv.append(str(write_end))
        command = (
            sandbox.bwrap_command(argv, Path(home), readonly=answer_key.mounts(exercise.name))
            if sandboxed
            else argv
        )
        env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
        env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        env["MPLBACKEND"] = "Agg"
        deadline = time.monotonic() + timeout
        process = subprocess.Popen(
            command,
            cwd=home,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=errors_write,
            pass_fds=(write_end,),
            preexec_fn=sandbox.preexec(limits),
        )
        os.close(write_end)
        os.close(errors_write)
        with ThreadPoolExecutor(max_workers=3) as pool:
            pool.submit(_feed, process.stdin, request)
            result = pool.submit(_drain, read_end, RESULT_LIMIT, deadline)
            stderr = pool.submit(_drain, errors_read, PRINT_LIMIT, deadline)
            try:
                returncode = process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                returncode = None
            _end(process)
            return ChildRun(returncode, result.result(), stderr.result())


def _feed(pipe: object, request: bytes) -> None:
    """Write the request to the grading process's stdin and close it (a dead process is fine)."""
    with contextlib.suppress(OSError):
        pipe.write(request)
        pipe.close()


def _end(process: subprocess.Popen) -> None:
    """End the grading process and everything it started: its group, and with bwrap its pid namespace."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        process.kill()
    process.wait()


def check_source(
    exercise: Exercise,
    sources: list[str],
    timeout: float = TIMEOUT_SECONDS,
    seed: int | None = None,
    sandboxed: bool = True,
    limits: sandbox.Limits = GRADING_LIMITS,
) -> ExerciseReport:
    """Run every check of `exercise` on the function defined by `sources`, in a new grading process.

    The process runs in the OS sandbox (`autograder.sandbox`) unless `sandboxed` is False.
    """
    seed = new_seed() if seed is None else seed
    checks = build_checks(
        exercise, seed
    )  # references first, before any student code exists anywhere
    calls = [call for check in checks for call in check.calls]
    report = ExerciseReport(exercise.name, exercise.points, seed=seed)
    request = pickle.dumps(
        {
            "preamble": exercise.preamble,
            "sources": sources,
            "references": reference_sources(exercise),
            "function": exercise.name,
            "calls": calls,
        }
    )
    run = _run_child(request, exercise, timeout, sandboxed, limits)
    if run.returncode is None:
        report.notes.append(f"timed out after {timeout:g} s: is there an endless loop?")
        report.flags.append("timeout")
        return report
    if run.returncode != 0 or not run.result:
        tail = run.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
        report.notes.append(
            f"the grading process stopped with exit code {run.returncode} before answering {tail[0][:300]}".strip()
        )
        report.flags.append("memory limit" if "MemoryError" in tail[0] else "crashed")
        return report
    try:
        summary = _read_result(run.result, len(calls))
    except Exception as error:  # anything malformed is the submission's doing
        report.notes.append(f"the grading process returned malformed answers ({str(error)[:200]})")
        report.flags.append("malformed answers")
        return report
    report.flags.extend(_behaviour_flags(summary["problems"], summary["outcomes"]))
    report.notes.extend(summary["problems"])
    if "called the library's implementation of the exercise" in report.flags:
        report.notes.append(
            "the solution calls the library's own implementation of this exercise, "
            "which grading does not allow: it earns 0"
        )
    if not summary["found"]:
        report.notes.append(f"no function named {exercise.name} is defined")
        report.results.append(
            CheckResult("the function exists", False, f"define a function named {exercise.name}")
        )
        return report
    report.results = judge(checks, summary["outcomes"])
    return report
