"""Class grading on Dask: the same grades on the local cluster and on a separate scheduler with two
workers, nothing lost when a worker is killed mid-class, a failed exit when workers keep dying, and
nothing graded twice when nothing changed. Through the real command on real course directories.
"""

import contextlib
import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from conftest import REPO, released_course
from support.classes import CHAPTER, busy_workers, course_command, student_code, totals
from support.cluster import loopback_cluster
from support.simulate import (
    copy_course,
    reference_code,
    replace_function,
    submission,
)

from autograder.course.collect import collect

pytestmark = pytest.mark.slow
SEED = "20261130"
# bigram_probs (2 points) wrong in one, mean_nll (2 points) behind a patched NumPy in another
BUGGY = replace_function(reference_code(CHAPTER)["bigram_probs_code"], "bigram_probs", "return N")
TAMPER = "import numpy as np\nnp.allclose = lambda *a, **k: True\n" + replace_function(
    reference_code(CHAPTER)["mean_nll_code"], "mean_nll", "return 0.0"
)
EXPECTED = {"alice": 7.0, "bob": 7.0, "carol": 5.0, "mallory": 5.0, "empty": 0.0}
FLAGGED = {"mallory", "empty"}


def _slow(notebook: dict) -> None:
    """A cell of the student's own that takes 4 s (no score changes): time to see the task running."""
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None}
    notebook["cells"].append({**cell, "source": "import time\ntime.sleep(4)"})


def build_class(course: Path, folder: Path, slow: bool = True) -> None:
    """Release chapter 01 and collect five hand-ins: two right, one bug, one tamperer, one empty
    file; alice's with a slow cell of her own (`_slow`) unless `slow` is False."""
    released_course(course, CHAPTER)
    released = course / "release" / CHAPTER / f"{CHAPTER}.ipynb"
    code = reference_code(CHAPTER)
    submission(released, folder / "alice" / f"{CHAPTER}.ipynb", code, _slow if slow else None)
    submission(released, folder / "bob" / f"{CHAPTER}.ipynb", code)
    submission(
        released, folder / "carol" / f"{CHAPTER}.ipynb", {**code, "bigram_probs_code": BUGGY}
    )
    submission(released, folder / "mallory" / f"{CHAPTER}.ipynb", {**code, "mean_nll_code": TAMPER})
    (folder / "empty").mkdir(parents=True)
    (folder / "empty" / f"{CHAPTER}.ipynb").write_text("")
    collect(course, folder)


def grades(course: Path) -> str:
    totals(course)  # exports grades.csv
    return (course / "grades.csv").read_text()


def flags(course: Path) -> dict:
    return json.loads((course / "flags.json").read_text())


def autograde(course: Path, *args: str) -> subprocess.CompletedProcess:
    done = course_command("autograde", "--root", str(course), "--seed", SEED, *args)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_local_cluster_then_a_separate_scheduler_then_a_rerun(tmp_path):
    """(a) local cluster and a `dask scheduler` with two `dask worker`s agree; (c) a re-run grades nothing."""
    course = tmp_path / "course"
    build_class(course, tmp_path / "submissions", slow=False)  # nothing here waits for a task
    remote = copy_course(course, tmp_path / "remote")

    done = autograde(course)
    assert "Dask dashboard" in done.stdout and "5 submissions to grade" in done.stdout
    assert totals(course) == EXPECTED
    assert set(flags(course)) == FLAGGED
    assert "suspicious code" in " ".join(flags(course)["mallory"][CHAPTER])
    with (course / "grades.csv").open() as handle:
        assert {row["sandbox"] for row in csv.DictReader(handle)} == {"on"}

    with loopback_cluster(workers=2) as (address, _):
        autograde(remote, "--scheduler", address)
    assert grades(remote) == grades(course)
    assert flags(remote) == flags(course)

    gradebook = (course / "gradebook.db").read_bytes()
    autograded = {p: p.stat().st_mtime_ns for p in (course / "autograded").rglob("*.ipynb")}
    done = autograde(course)
    assert "0 submissions to grade, 5 unchanged" in done.stdout
    assert (course / "gradebook.db").read_bytes() == gradebook
    assert {p: p.stat().st_mtime_ns for p in (course / "autograded").rglob("*.ipynb")} == autograded
    # carol hands in a fixed notebook: only hers is graded again
    released = course / "release" / CHAPTER / f"{CHAPTER}.ipynb"
    submission(released, tmp_path / "fixed" / "carol" / f"{CHAPTER}.ipynb", reference_code(CHAPTER))
    collect(course, tmp_path / "fixed")
    done = autograde(course)
    assert "1 submissions to grade, 4 unchanged" in done.stdout
    assert totals(course) == {**EXPECTED, "carol": 7.0}
    assert "5 submissions to grade, 0 unchanged" in autograde(course, "--force").stdout


def _notebook_running(process: psutil.Process) -> bool:
    """Whether the worker `process` runs a grading process: mid-task for certain."""
    with contextlib.suppress(psutil.Error):
        return any(student_code(p) for p in process.children(recursive=True))
    return False


def _autograde_while_killing(
    course: Path, kills: int, *args: str
) -> tuple[subprocess.Popen, int, str]:
    """Run autograde and kill a busy worker, `kills` times in all; (process, killed, stderr)."""
    command = ["autograde", "--root", str(course), "--seed", SEED, *args]
    process = subprocess.Popen(
        [sys.executable, "-m", "autograder.cli.instructor", *command],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}"),
    )
    parent, killed = psutil.Process(process.pid), 0
    deadline = time.monotonic() + 600
    while killed < kills and process.poll() is None and time.monotonic() < deadline:
        busy = [worker for worker in busy_workers(parent) if _notebook_running(worker)]
        if busy:  # a grading process: the task is running, its death counts
            os.kill(busy[0].pid, signal.SIGKILL)
            killed += 1
            time.sleep(1.0)
        time.sleep(0.1)
    _, stderr = process.communicate(timeout=900)
    return process, killed, stderr


def test_a_worker_killed_mid_class_loses_nothing(tmp_path):
    """(b) the class graded with one worker killed mid-notebook: complete, the same grades and flags."""
    course = tmp_path / "course"
    build_class(course, tmp_path / "submissions")
    process, killed, stderr = _autograde_while_killing(course, kills=1)
    assert killed == 1, "no busy worker was seen to kill"
    assert process.returncode == 0, stderr[-3000:]
    assert totals(course) == EXPECTED
    assert set(flags(course)) == FLAGGED


def test_workers_that_keep_dying_make_autograde_fail(tmp_path):
    course, folder = tmp_path / "course", tmp_path / "submissions"
    released_course(course, CHAPTER)
    released = course / "release" / CHAPTER / f"{CHAPTER}.ipynb"
    submission(released, folder / "alice" / f"{CHAPTER}.ipynb", reference_code(CHAPTER), _slow)
    collect(course, folder)
    # one worker, restarted by its nanny after each kill: the task's three attempts all die
    process, killed, stderr = _autograde_while_killing(course, 3, "--workers", "1")
    # Dask counts every death of the worker running the task, ours or not: on a loaded machine a
    # restarted worker once died a third time after our second kill (CI, 2 of 3 kills seen)
    assert 1 <= killed <= 3 and "workers died" in stderr, stderr[-3000:]
    assert process.returncode == 1, stderr[-3000:]
    assert "could not be graded" in stderr and "alice/01_bigram_counting" in stderr
