"""Run an exercise's checks: in this process (hidden-test cells) or in a fresh, limited grading process."""

import json
import os
import pickle
import resource
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from autograder.exercises import Exercise
from autograder.harness import Check, CheckFailed, Outcome, run_call
from autograder.plain import decode

TIMEOUT_SECONDS = 20.0
MEMORY_LIMIT_BYTES = 3 * 1024**3


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

    @property
    def passed(self) -> bool:
        """True when there were checks and every one passed."""
        return bool(self.results) and all(result.passed for result in self.results)

    @property
    def earned(self) -> int:
        """Points earned: all of them when every check passed, else none."""
        return self.points if self.passed else 0


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


def build_checks(exercise: Exercise) -> list[Check]:
    """The exercise's checks with their references, built with warnings silenced."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return exercise.checks()


def check_function(exercise: Exercise, fn: Callable) -> ExerciseReport:
    """Run every check of `exercise` on `fn` in this process (used by hidden-test cells)."""
    checks = build_checks(exercise)
    outcomes = [run_call(fn, call) for check in checks for call in check.calls]
    return ExerciseReport(exercise.name, exercise.points, judge(checks, outcomes))


def _limit_resources() -> None:
    """In the grading process, before it starts: cap memory and start a new process group."""
    os.setsid()
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))


def _read_result(path: Path, expected: int) -> dict:
    """Decode the grading process's answers, trusting nothing about their shape."""
    with np.load(path, allow_pickle=False) as stored:
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


def check_source(
    exercise: Exercise, sources: list[str], timeout: float = TIMEOUT_SECONDS
) -> ExerciseReport:
    """Run every check of `exercise` on the function defined by `sources`, in a fresh grading process."""
    checks = build_checks(exercise)  # references first, before any student code exists anywhere
    calls = [call for check in checks for call in check.calls]
    report = ExerciseReport(exercise.name, exercise.points)
    with tempfile.TemporaryDirectory(prefix="proof-lm-grade-") as tmp:
        request, result, workdir = (
            Path(tmp, "request.pkl"),
            Path(tmp, "result.npz"),
            Path(tmp, "work"),
        )
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
        process = subprocess.Popen(
            [sys.executable, "-I", "-m", "autograder.child", str(request), str(result)],
            cwd=workdir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            preexec_fn=_limit_resources,
        )
        try:
            _, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.communicate()
            report.notes.append(f"timed out after {timeout:g} s: is there an endless loop?")
            report.flags.append("timeout")
            return report
        if process.returncode != 0 or not result.exists():
            tail = stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
            report.notes.append(
                f"the grading process stopped with exit code {process.returncode} before answering {tail[0]}".strip()
            )
            report.flags.append("crashed" if "MemoryError" not in tail[0] else "memory limit")
            return report
        try:
            summary = _read_result(result, len(calls))
        except Exception as error:  # anything malformed is the submission's doing
            report.notes.append(f"the grading process returned malformed answers ({error})")
            report.flags.append("malformed answers")
            return report
    report.notes.extend(summary["problems"])
    if not summary["found"]:
        report.notes.append(f"no function named {exercise.name} is defined")
        report.results.append(
            CheckResult("the function exists", False, f"define a function named {exercise.name}")
        )
        return report
    report.results = judge(checks, summary["outcomes"])
    return report
