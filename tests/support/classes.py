"""A class graded through the real commands (`python -m autograder.cli.instructor ...`), for the tests."""

import csv
import os
import subprocess
import sys
from pathlib import Path

import psutil
from conftest import REPO, released_course

from autograder.sandbox.host.bwrap import UID_COUNT, UID_FIRST
from support.simulate import reference_code, submission

CHAPTER = "01_bigram_counting"


def course_command(*args: str) -> subprocess.CompletedProcess:
    """`python -m autograder.cli.instructor ARGS` as an instructor runs it, this venv's tools on PATH."""
    return subprocess.run(
        [sys.executable, "-m", "autograder.cli.instructor", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}"),
    )


def honest_class(course: Path, folder: Path, students: list[str]) -> None:
    released_course(course, CHAPTER)
    released = course / "release" / CHAPTER / f"{CHAPTER}.ipynb"
    for student in students:
        submission(released, folder / student / f"{CHAPTER}.ipynb", reference_code(CHAPTER))


def totals(course: Path) -> dict[str, float]:
    done = course_command("export", "--root", str(course), "--to", str(course / "grades.csv"))
    assert done.returncode == 0, done.stderr
    with (course / "grades.csv").open() as handle:
        return {row["student"]: float(row["total"]) for row in csv.DictReader(handle)}


def student_code(process: psutil.Process) -> bool:
    """A grading process: the one place a submission's code runs (as root under a uid of the
    sandbox's range; without root every sandbox keeps the caller's uid)."""
    command = " ".join(process.cmdline())
    uid = process.uids().real
    ours = UID_FIRST <= uid < UID_FIRST + UID_COUNT if os.geteuid() == 0 else uid == os.getuid()
    return ours and "autograder.sandbox.guest.child" in command


def busy_workers(process: psutil.Process) -> list[psutil.Process]:
    """The local cluster's worker processes running student code right now."""
    busy = []
    for child in process.children():
        try:
            if "spawn_main" not in " ".join(child.cmdline()):
                continue
            if any(student_code(p) for p in child.children(recursive=True)):
                busy.append(child)
        except psutil.Error:
            continue
    return busy
