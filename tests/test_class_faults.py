"""Class grading never loses or corrupts anything: bad files, unsafe hand-ins, no sandbox.

Dying workers and the Dask cluster: tests/test_class_dask.py.

Through the real commands (`python -m autograder.course ...`) on a real course directory.
"""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from autograder.course import collect, release
from autograder.course.simulate import reference_code, submission

CHAPTER = "01_bigram_counting"
pytestmark = pytest.mark.slow


def course_command(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "autograder.course", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}"),
    )


def honest_class(course: Path, folder: Path, students: list[str]) -> None:
    release(course, [CHAPTER])
    released = course / "release" / CHAPTER / f"{CHAPTER}.ipynb"
    for student in students:
        submission(released, folder / student / f"{CHAPTER}.ipynb", reference_code(CHAPTER))


def totals(course: Path) -> dict[str, float]:
    done = course_command("export", "--root", str(course), "--to", str(course / "grades.csv"))
    assert done.returncode == 0, done.stderr
    with (course / "grades.csv").open() as handle:
        return {row["student"]: float(row["total"]) for row in csv.DictReader(handle)}


def test_bad_files_cost_their_submission_alone(tmp_path):
    course, folder = tmp_path / "course", tmp_path / "submissions"
    honest_class(course, folder, ["good1", "good2"])
    bad = {
        "empty": "",
        "notjson": "this is not a notebook {",
        "nbformat3": json.dumps({"nbformat": 3, "nbformat_minor": 0, "metadata": {}}),
        "badcell": json.dumps(
            {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"source": 7}]}
        ),
        "badgradeid": json.dumps(
            {
                "nbformat": 4,
                "nbformat_minor": 5,
                "metadata": {},
                "cells": [
                    {
                        "cell_type": "code",
                        "source": "x = 1",
                        "metadata": {"nbgrader": {"grade_id": ["a"]}},
                        "outputs": [],
                        "execution_count": None,
                    }
                ],
            }
        ),
    }
    for student, text in bad.items():
        (folder / student).mkdir(parents=True)
        (folder / student / f"{CHAPTER}.ipynb").write_text(text)
    collect(course, folder)
    done = course_command("autograde", "--root", str(course))
    assert done.returncode == 0, done.stderr[-3000:]
    flags = json.loads((course / "flags.json").read_text())
    scores = totals(course)
    assert scores["good1"] == scores["good2"] == 7.0
    run = json.loads((course / "autograde.json").read_text())
    assert run["sandbox"] is True and isinstance(run["seed"], int)
    with (course / "grades.csv").open() as handle:
        assert {row["sandbox"] for row in csv.DictReader(handle)} == {"on"}
    assert "good1" not in flags and "good2" not in flags
    for student in bad:
        assert scores.get(student, 0.0) == 0.0
        assert any("not a readable notebook" in reason for reason in flags[student][CHAPTER]), (
            student,
            flags[student],
        )


@pytest.mark.parametrize("case", ["symlink-notebook", "symlink-folder", "glob-name", "fifo"])
def test_collect_refuses_unsafe_hand_ins(tmp_path, case):
    course, folder = tmp_path / "course", tmp_path / "submissions"
    honest_class(course, folder, ["alice"])
    if case == "symlink-notebook":
        (folder / "mallory").mkdir()
        (folder / "mallory" / f"{CHAPTER}.ipynb").symlink_to(folder / "alice" / f"{CHAPTER}.ipynb")
    elif case == "symlink-folder":
        (folder / "mallory").symlink_to(folder / "alice")
    elif case == "glob-name":
        (folder / "*").mkdir()
        (folder / "*" / f"{CHAPTER}.ipynb").write_text("{}")
    else:
        (folder / "mallory").mkdir()
        os.mkfifo(folder / "mallory" / "pipe")
    done = course_command("collect", "--root", str(course), str(folder))
    assert done.returncode == 2 and "collect refuses" in done.stderr
    assert not (course / "submitted").exists(), "nothing is copied when a hand-in is refused"


def test_grading_without_the_sandbox_is_written_into_the_grades(tmp_path):
    course, folder = tmp_path / "course", tmp_path / "submissions"
    honest_class(course, folder, ["alice"])
    collect(course, folder)
    done = course_command("autograde", "--root", str(course), "--no-sandbox")
    assert done.returncode == 0 and "--no-sandbox" in done.stderr, done.stderr[-2000:]
    assert totals(course) == {"alice": 7.0}, "the same score without the sandbox"
    assert json.loads((course / "autograde.json").read_text())["sandbox"] is False
    with (course / "grades.csv").open() as handle:
        assert [row["sandbox"] for row in csv.DictReader(handle)] == ["OFF (--no-sandbox)"]
