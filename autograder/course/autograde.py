"""Grading a class: nbgrader autograde on every core with sandboxed kernels, then trusted confirmation."""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from autograder import sandbox
from autograder.course.confirm import confirm
from autograder.course.kernels import SANDBOX_VARIABLE, WORKER_LIMITS
from autograder.sandbox import preexec

WORKER_ATTEMPTS = 3  # a job whose worker died is given to a new worker this many times in all


class GradingIncomplete(RuntimeError):
    """Some submissions could not be graded (a worker kept dying); the rest are in the gradebook."""


def submissions(root: Path, chapters: list[str]) -> list[tuple[str, str]]:
    """Every (chapter, student) with a submitted notebook."""
    return sorted(
        (chapter, path.parent.parent.name)
        for chapter in chapters
        for path in (root / "submitted").glob(f"*/{chapter}/{chapter}.ipynb")
    )


def _run_workers(
    root: Path, jobs: list[tuple[str, str]], workers: int, sandboxed: bool
) -> dict[tuple[str, str], dict]:
    """One round of nbgrader workers over `jobs`; the results they recorded (a dead worker's are missing)."""
    env = dict(
        os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    )
    env.pop("NBGRADER_EXECUTION", None)
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    if not sandboxed:
        env[SANDBOX_VARIABLE] = "off"
    shards = [jobs[i::workers] for i in range(workers)]
    with tempfile.TemporaryDirectory(prefix="proof-lm-results-") as tmp:
        paths = [Path(tmp, f"worker{i}.jsonl") for i in range(len(shards))]
        processes = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "autograder.course.kernels",
                    str(root),
                    str(path),
                    *(f"{c}:{s}" for c, s in shard),
                ],
                cwd=root,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                preexec_fn=preexec(WORKER_LIMITS),
            )
            for shard, path in zip(shards, paths, strict=False)
            if shard
        ]
        for process in processes:
            process.wait()
        results = {}
        for path in paths:
            lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
            for line in lines:
                result = json.loads(line)
                results[(result["chapter"], result["student"])] = result
        return results


def run_nbgrader(
    root: Path, jobs: list[tuple[str, str]], workers: int = 2, sandboxed: bool = True
) -> dict[tuple[str, str], dict]:
    """nbgrader autograde for every job in `workers` processes; jobs of a worker that died are retried."""
    results: dict[tuple[str, str], dict] = {}
    for _ in range(WORKER_ATTEMPTS):
        missing = [job for job in jobs if job not in results]
        if not missing:
            break
        results.update(_run_workers(root, missing, workers, sandboxed))
    for job in jobs:
        results.setdefault(
            job,
            {"chapter": job[0], "student": job[1], "success": False, "error": "worker died"},
        )
    return results


def autograde_class(
    root: Path, chapters: list[str], workers: int = 2, sandboxed: bool = True
) -> dict:
    """nbgrader autograde on every core, then trusted confirmation; return the flags.

    GradingIncomplete when a submission could not be graded because a worker kept dying.
    """
    jobs = submissions(root, chapters)
    results = run_nbgrader(root, jobs, workers, sandboxed)
    flags = confirm(root, jobs, results, workers, sandboxed)
    lost = [job for job, result in results.items() if result.get("error") == "worker died"]
    if lost:
        raise GradingIncomplete(
            f"{len(lost)} submissions could not be run by nbgrader (a worker died "
            f"{WORKER_ATTEMPTS} times): {', '.join(f'{s}/{c}' for c, s in lost)}"
        )
    return flags


def autograde(root: Path, names: list[str], sandboxed: bool = True) -> dict:
    """Autograde every submission on both cores, confirm each score on the trusted path; return flags.

    SandboxUnavailable (with install instructions) unless bubblewrap works or `sandboxed` is False.
    """
    if sandboxed:
        sandbox.check_available()
    return autograde_class(root, names, sandboxed=sandboxed)
