"""The instructor's flow end to end through the make targets on a real nbgrader course and gradebook."""

import csv
import json
import subprocess

import pytest
from conftest import REPO
from support.simulate import reference_code, replace_function, submission

from autograder.judge.runner import grade_notebook

CHAPTER = "01_bigram_counting"
pytestmark = pytest.mark.slow


def make(target: str, **variables: str) -> subprocess.CompletedProcess:
    args = [f"{key}={value}" for key, value in variables.items()]
    done = subprocess.run(
        ["make", "--no-print-directory", target, *args], cwd=REPO, capture_output=True, text=True
    )
    assert done.returncode == 0, (
        f"make {target} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    )
    return done


def edit_locked_test(notebook):
    for cell in notebook["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "bigram_counts":
            cell["source"] = "print('all tests passed')"


def class_of_students(released, folder):
    good = reference_code(CHAPTER)
    buggy = dict(good)
    buggy["bigram_counts_code"] = good["bigram_counts_code"].replace(
        "(ids[:-1], ids[1:])", "(ids[1:], ids[:-1])"
    )
    buggy["bigram_probs_code"] = replace_function(
        good["bigram_probs_code"],
        "bigram_probs",
        "s = counts + k\nreturn s / s.sum(axis=1, keepdims=True)",
    )
    buggy["mean_nll_code"] = good["mean_nll_code"].replace(
        "return float(total / count)", "return float(total)"
    )
    buggy["perplexity_code"] = replace_function(
        good["perplexity_code"], "perplexity", "return float(np.mean(-np.log(token_probs)))"
    )
    lazy = dict(
        good,
        bigram_counts_code=replace_function(
            good["bigram_counts_code"],
            "bigram_counts",
            "return np.ones((len(stoi), len(stoi)), dtype=np.int64)",
        ),
    )
    looping = dict(
        good,
        bigram_counts_code=replace_function(
            good["bigram_counts_code"], "bigram_counts", "while True:\n    pass"
        ),
    )
    students = {
        "alice": (good, None),  # fully correct
        "bob": ({}, None),  # the released stubs, untouched
        "carol": (buggy, None),  # one plausible bug per exercise
        "dave": (lazy, edit_locked_test),  # wrong counts, and replaces the locked test cell
        "erin": (looping, None),  # bigram_counts never terminates
    }
    for student, (code, edit) in students.items():
        submission(released, folder / student / f"{CHAPTER}.ipynb", code, edit)
    return {"alice": 7, "bob": 0, "carol": 0, "dave": 5, "erin": 5}


def test_release_collect_autograde_feedback_export(tmp_path, monkeypatch):
    # erin's endless loop meets a 6-s exercise budget, the instructor's setting (30 s by default)
    monkeypatch.setenv("PROOF_LM_EXERCISE_SECONDS", "6")
    course, submissions = tmp_path / "course", tmp_path / "submissions"
    make("release", COURSE=course, CHAPTERS=CHAPTER)
    released = course / "release" / CHAPTER / f"{CHAPTER}.ipynb"
    assert released.read_text() == (REPO / "chapters" / f"{CHAPTER}.ipynb").read_text()
    expected = class_of_students(released, submissions)
    (submissions / "alice" / "numpy.py").write_text(
        "raise SystemExit('a submitted file was imported')\n"
    )

    make("collect", COURSE=course, SUBMISSIONS=submissions)
    assert not (course / "submitted" / "alice" / CHAPTER / "numpy.py").exists()
    make("autograde", COURSE=course)
    make("feedback", COURSE=course)
    make("export", COURSE=course)

    with (course / "grades.csv").open() as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert {student: float(row["total"]) for student, row in rows.items()} == {
        student: float(points) for student, points in expected.items()
    }
    assert {student for student, row in rows.items() if row["flagged"]} == {"alice", "dave", "erin"}
    assert "numpy.py" in rows["alice"]["flags"], (
        "a file handed in beside the notebook is flagged, not graded"
    )
    assert "locked cell bigram_counts edited" in rows["dave"]["flags"]
    assert "timeout" in rows["erin"]["flags"]

    # nbgrader's per-exercise scores agree with the trusted self-grade of the same submission
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in sorted(set(expected) - {"erin"}):  # erin's endless loop: her score is above
            notebook = submissions / student / f"{CHAPTER}.ipynb"
            trusted = {r.exercise: r.earned for r in grade_notebook(notebook)}
            graded = {
                name: gradebook.find_grade(name, CHAPTER, CHAPTER, student).score
                for name in trusted
            }
            assert graded == trusted, student

    carol = (course / "feedback" / "carol" / CHAPTER / f"{CHAPTER}.html").read_text()
    assert "rows and columns are swapped" in carol
    for student in expected:
        page = (course / "feedback" / student / CHAPTER / f"{CHAPTER}.html").read_text()
        assert (
            "run_checks" not in page
            and "HIDDEN TESTS" not in page
            and "reference_counts" not in page
        )
        # the trusted grader's report stands in each test cell
        assert "bigram_counts: " in page and "checks passed)" in page
    erin = json.loads((course / "autograded" / "erin" / CHAPTER / f"{CHAPTER}.ipynb").read_text())
    assert "timed out after 6 s: is there an endless loop" in json.dumps(erin)  # the trusted report
