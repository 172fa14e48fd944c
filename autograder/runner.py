"""Run an exercise's checks: in this process (hidden-test cells) or in a fresh, limited grading process."""

import contextlib
import io
import json
import os
import pickle
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from autograder.child import apply_limits
from autograder.exercises import Exercise
from autograder.forkserver import relay_command, serving
from autograder.harness import Check, CheckFailed, Outcome, run_call
from autograder.notebook import PARSING
from autograder.plain import decode

TIMEOUT_SECONDS = 10.0  # per exercise
TAMPERING = {
    "tried to exit the interpreter",
    "tried to write a file",
    "returned an object that is not plain data",
    "printed text that looks like a grading report",
    "malformed answers",
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


def _limit_resources() -> None:
    """In the grading process, before it starts: a new process group, capped memory, no file growth.

    The process also installs an audit hook (autograder.child.guard) before any student code runs,
    which refuses to open files for writing, delete, rename, spawn or connect.
    """
    os.setsid()
    apply_limits()


def grading_template() -> contextlib.AbstractContextManager[str | None]:
    """A fork server of grading processes while the block runs: its socket path, or None where none starts.

    With None, `check_source` starts every grading process anew, as it does without a template.
    """
    return serving("autograder.child", ("-I", "-B"))


def _read_result(data: bytes, expected: int) -> dict:
    """Decode the grading process's answers, trusting nothing about their shape."""
    with PARSING, np.load(io.BytesIO(data), allow_pickle=False) as stored:
        arrays = {key: stored[key] for key in stored.files}
    summary = decode(json.loads(arrays.pop("__json__").tobytes().decode()), arrays)
    outcomes = []
    for raw in summary["outcomes"]:
        outcome = Outcome(**raw)
        if not (outcome.error is None or isinstance(outcome.error, str)):
            raise ValueError("malformed outcome")
        outcome.error_bases = tuple(outcome.error_bases)
        outcomes.append(outcome)
    if summary["found"] and len(outcomes) != expected:
        raise ValueError(f"{len(outcomes)} answers for {expected} calls")
    return {
        "found": bool(summary["found"]),
        "problems": [str(p) for p in summary["problems"]],
        "outcomes": outcomes,
    }


FAKE_REPORT = re.compile(r"\d+/\d+ points|\bPASS\b|Score: \d+/\d+")


def _behaviour_flags(problems: list[str], outcomes: list[Outcome], printed: str) -> list[str]:
    """What the submission did that an honest one does not: exit, exhaust memory, return objects, fake reports."""
    flags = []
    if any("SystemExit" in p or "KeyboardInterrupt" in p for p in problems) or any(
        o.error == "BaseException" for o in outcomes
    ):
        flags.append("tried to exit the interpreter")
    if any("MemoryError" in p for p in problems) or any(o.error == "MemoryError" for o in outcomes):
        flags.append("memory limit")
    if any(o.error == "NotPlain" for o in outcomes):
        flags.append("returned an object that is not plain data")
    messages = [*problems, *(o.message for o in outcomes if o.error)]
    if any("grading forbids" in m or "File too large" in m for m in messages):
        flags.append("tried to write a file")
    if FAKE_REPORT.search(printed):
        flags.append("printed text that looks like a grading report")
    return flags


def _read_all(fd: int, limit: int = 256 * 1024**2) -> bytes:
    """Everything written to a pipe until it closes (at most `limit` bytes)."""
    chunks, size = [], 0
    with os.fdopen(fd, "rb") as pipe:
        while size < limit and (chunk := pipe.read(1 << 20)):
            chunks.append(chunk)
            size += len(chunk)
    return b"".join(chunks)


def check_source(
    exercise: Exercise,
    sources: list[str],
    timeout: float = TIMEOUT_SECONDS,
    template: str | None = None,
    seed: int | None = None,
) -> ExerciseReport:
    """Run every check of `exercise` on the function defined by `sources`, in a fresh grading process.

    The process is started anew, or forked from the `autograder.forkserver` template of
    `autograder.child` listening at `template` (see `grading_template`).
    """
    seed = new_seed() if seed is None else seed
    checks = build_checks(
        exercise, seed
    )  # references first, before any student code exists anywhere
    calls = [call for check in checks for call in check.calls]
    report = ExerciseReport(exercise.name, exercise.points, seed=seed)
    with tempfile.TemporaryDirectory(prefix="proof-lm-grade-") as tmp:
        request, workdir = Path(tmp, "request.pkl"), Path(tmp, "work")
        workdir.mkdir()
        request.write_bytes(
            pickle.dumps(
                {
                    "preamble": exercise.preamble,
                    "sources": sources,
                    "function": exercise.name,
                    "calls": calls,
                }
            )
        )
        env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
        env.update(
            OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MPLBACKEND="Agg"
        )
        read_end, write_end = os.pipe()
        argv = ["autograder.child", str(request), str(write_end)]
        process = subprocess.Popen(
            relay_command(template, [0, 1, 2, write_end], argv)
            if template
            else [sys.executable, "-I", "-B", "-m", *argv],
            cwd=workdir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(write_end,),
            preexec_fn=_limit_resources,
        )
        os.close(write_end)
        with ThreadPoolExecutor(max_workers=1) as reader:
            answers = reader.submit(_read_all, read_end)
            try:
                printed, stderr = process.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.communicate()
                report.notes.append(f"timed out after {timeout:g} s: is there an endless loop?")
                report.flags.append("timeout")
                return report
            data = answers.result()
        if process.returncode != 0 or not data:
            tail = stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
            report.notes.append(
                f"the grading process stopped with exit code {process.returncode} before answering {tail[0]}".strip()
            )
            report.flags.append("memory limit" if "MemoryError" in tail[0] else "crashed")
            return report
        try:
            summary = _read_result(data, len(calls))
        except Exception as error:  # anything malformed is the submission's doing
            report.notes.append(f"the grading process returned malformed answers ({error})")
            report.flags.append("malformed answers")
            return report
    report.flags.extend(
        _behaviour_flags(summary["problems"], summary["outcomes"], printed.decode(errors="replace"))
    )
    report.notes.extend(summary["problems"])
    if not summary["found"]:
        report.notes.append(f"no function named {exercise.name} is defined")
        report.results.append(
            CheckResult("the function exists", False, f"define a function named {exercise.name}")
        )
        return report
    report.results = judge(checks, summary["outcomes"])
    return report
