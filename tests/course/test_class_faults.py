"""Class grading never loses or corrupts anything: bad files, unsafe hand-ins, no sandbox.

Dying workers and the Dask cluster: tests/course/test_class_dask.py.

Through the real commands (`python -m autograder.cli.instructor ...`) on a real course directory.
"""

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO
from support.classes import CHAPTER, course_command, honest_class, totals
from support.simulate import copy_course

from autograder.course.collect import collect
from autograder.judge.notebook import MAX_NOTEBOOK_BYTES

pytestmark = pytest.mark.slow


GRADED_NAMES = ["Alice", "alice", "a..b@c+d-_", "L" * 255]  # case, every sign, very long
REFUSED_NAMES = ["*", "?", "[a]", "-x", "=1+1", ".hidden", "a b", "é", "a,b", "a\nb"]


def test_bad_files_and_odd_names_cost_their_submission_alone_and_none_is_dropped(tmp_path):
    """Bad files are graded 0 and flagged. Students' folder names nbgrader, a shell or a spreadsheet
    could read as patterns, paths, options or formulas: each correct hand-in ends graded in full
    or in grades.csv flagged with why, and a refusal is still there after a later collect."""
    course, folder, later = tmp_path / "course", tmp_path / "submissions", tmp_path / "later"
    honest_class(course, folder, GRADED_NAMES)
    for name in REFUSED_NAMES:
        shutil.copytree(folder / "Alice", folder / name)
    shutil.copytree(folder / "Alice", later / "zed")
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
    for handed_in in (folder, later):  # the later collect: zed's hand-in alone
        done = course_command("collect", "--root", str(course), str(handed_in))
        assert done.returncode == 0, done.stderr
    done = course_command("autograde", "--root", str(course))
    assert done.returncode == 0, done.stderr[-3000:]
    flags = json.loads((course / "flags.json").read_text())
    totals(course)
    with (course / "grades.csv").open(newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    run = json.loads((course / "autograde.json").read_text())
    assert run["sandbox"] is True and isinstance(run["seed"], int)
    assert {row["sandbox"] for row in rows.values()} == {"on"}
    for name in [*GRADED_NAMES, "zed"]:
        row = rows.pop(name)
        assert (row["total"], row["flags"]) == ("7.0", ""), (name, row)
        assert name not in flags
    for student in bad:
        assert rows.pop(student)["total"] == "0.0"
        assert any("not a readable notebook" in reason for reason in flags[student][CHAPTER]), (
            student,
            flags[student],
        )
    shown = {"-x": "'-x", "=1+1": "'=1+1", "a\nb": "a\\x0ab"}  # no formula; one line
    for name in REFUSED_NAMES:
        row = rows.pop(shown.get(name, name))
        assert (row["flagged"], row["total"]) == ("yes", "0.0"), (name, row)
        assert row["flags"] == (
            "every chapter: handed in but refused at collect, not graded: "
            "use letters, digits and _ . @ + - only"
        ), (name, row)
    assert rows == {}, "a row for no one who handed in"


CASES = {  # case: (the refused student's folder name, chapter refused or None for the student)
    "symlink-notebook": ("mallory", CHAPTER),
    "symlink-folder": ("mallory", None),
    "glob-name": ("*", None),
    "dash-name": ("-x", None),
    "newline-name": ("bad\nFLAGGED alice", None),
    "fifo-notebook": ("mallory", CHAPTER),
    "folder-notebook": ("mallory", CHAPTER),
    "huge-notebook": ("mallory", CHAPTER),
}


@pytest.fixture(scope="module")
def two_students(tmp_path_factory) -> Path:
    """A released course and the hand-ins of alice and zed (sorted before and after each bad name)."""
    base = tmp_path_factory.mktemp("two-students")
    honest_class(base / "course", base / "submissions", ["alice", "zed"])
    return base


@pytest.mark.parametrize("case", sorted(CASES))
def test_collect_refuses_an_unsafe_hand_in_alone(tmp_path, case, two_students):
    course = copy_course(two_students / "course", tmp_path / "course")
    folder = tmp_path / "submissions"
    shutil.copytree(two_students / "submissions", folder)
    name, chapter = CASES[case]
    bad = folder / name
    if case == "symlink-folder":
        bad.symlink_to(folder / "alice")
    else:
        bad.mkdir()
    notebook = bad / f"{CHAPTER}.ipynb"
    if case == "symlink-notebook":
        notebook.symlink_to(folder / "alice" / f"{CHAPTER}.ipynb")
    elif case in ("glob-name", "dash-name", "newline-name"):
        notebook.write_text("{}")
    elif case == "fifo-notebook":
        os.mkfifo(notebook)  # reading it would block collect forever
        os.mkfifo(bad / "pipe")
    elif case == "folder-notebook":
        notebook.mkdir()
        (notebook / "inside.txt").write_text("x")
    elif case == "huge-notebook":
        with notebook.open("wb") as handle:
            handle.truncate(MAX_NOTEBOOK_BYTES + 1)
    done = course_command("collect", "--root", str(course), str(folder))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"collected alice {CHAPTER}", f"collected zed {CHAPTER}"]
    refused = f"refused {name!r}" + (f" {chapter}" if chapter else "")
    assert done.stderr.startswith(refused) and done.stderr.count("\n") == 1, done.stderr
    assert {p.name for p in (course / "submitted").iterdir()} == {"alice", "zed"}
    manifest = json.loads((course / "collected.json").read_text())
    assert manifest["_refused"] == [
        {"student": name, "chapter": chapter, "why": manifest["_refused"][0]["why"]}
    ]
    assert set(manifest) == {"alice", "zed", "_refused"}


def test_a_refusal_stands_until_that_hand_in_is_collected(tmp_path):
    course = tmp_path / "course"
    for name, student in (("link", "mallory"), ("other", "zed"), ("fixed", "mallory")):
        (tmp_path / name / student).mkdir(parents=True)
    (tmp_path / "link" / "mallory" / f"{CHAPTER}.ipynb").symlink_to("/etc/hostname")
    (tmp_path / "other" / "zed" / f"{CHAPTER}.ipynb").write_text("{}")
    (tmp_path / "fixed" / "mallory" / f"{CHAPTER}.ipynb").write_text("{}")
    standing = []
    for name in ("link", "other", "fixed"):
        collect(course, tmp_path / name)
        manifest = json.loads((course / "collected.json").read_text())
        standing.append([(r["student"], r["chapter"]) for r in manifest["_refused"]])
    assert standing == [[("mallory", CHAPTER)], [("mallory", CHAPTER)], []]


def test_collect_refuses_an_unreadable_hand_in_alone(tmp_path):
    """A notebook and a folder the instructor cannot read: mode 0, and as root the command runs
    without the capabilities that read everything (same uid, so a checkout in a private home works)."""
    course, folder = tmp_path / "course", tmp_path / "submissions"
    honest_class(course, folder, ["alice", "zed"])
    (folder / "mallory").mkdir()
    (folder / "mallory" / f"{CHAPTER}.ipynb").write_text("{}")
    (folder / "mallory" / f"{CHAPTER}.ipynb").chmod(0)
    (folder / "nosy").mkdir(mode=0)
    powerless = ["setpriv", "--inh-caps=-all", "--bounding-set=-all", "--"]
    try:
        done = subprocess.run(
            [
                *(powerless if os.geteuid() == 0 else []),
                *(sys.executable, "-m", "autograder.cli.instructor", "collect"),
                *("--root", str(course), str(folder)),
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            env=dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}"),
        )
    finally:
        (folder / "nosy").chmod(0o700)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"collected alice {CHAPTER}", f"collected zed {CHAPTER}"]
    assert f"refused 'mallory' {CHAPTER}: the hand-in cannot be read" in done.stderr
    assert "refused 'nosy': its folder cannot be read" in done.stderr


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
