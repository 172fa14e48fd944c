"""Challenges are extra credit: beside the chapter's score everywhere, never inside the regular total.

Through a real nbgrader course (release, collect, autograde, feedback, export) for chapter 01,
whose challenge is `interpolated_probs`: one student solves it, one does not.
"""

import csv
import json

import pytest
from conftest import released_course
from support.classes import course_command
from support.simulate import reference_code, replace_function, submission

from autograder.course.collect import collect
from autograder.judge.exercises import EXERCISES, chapter_exercises
from autograder.judge.report import html_report, score_line
from autograder.judge.verdicts import CheckResult, ExerciseReport

CHAPTER = "01_bigram_counting"
CHALLENGE = "interpolated_probs"


def test_challenges_are_marked_and_outside_the_regular_total():
    challenges = [e for e in EXERCISES.values() if e.extra]
    assert len({e.chapter for e in challenges}) >= 6
    assert sum(e.points for e in EXERCISES.values() if not e.extra) == 100  # chapters 01-09
    assert [e.name for e in chapter_exercises(CHAPTER) if e.extra] == [CHALLENGE]


def test_reports_put_extra_credit_beside_the_score():
    passed = [CheckResult("a check", True)]
    reports = [
        ExerciseReport("bigram_counts", 2, list(passed)),
        ExerciseReport("mean_nll", 2, [CheckResult("a check", False, "a hint")]),
        ExerciseReport(CHALLENGE, 2, list(passed), extra=True),
    ]
    assert score_line(reports) == "Score: 2/4 + extra credit 2/2"
    page = html_report("Feedback", reports)
    assert "Score: 2/4 + extra credit 2/2" in page
    assert f"{CHALLENGE} (challenge, extra credit): 2 / 2" in page
    assert score_line(reports[:2]) == "Score: 2/4", "no extra-credit note without a challenge"


def test_a_failed_exercise_names_the_seed_of_its_hidden_cases():
    from autograder.judge.report import text_report

    failed = ExerciseReport("mean_nll", 2, [CheckResult("a check", False, "a hint")], seed=77)
    assert "hidden cases drawn from seed 77" in text_report(failed)
    passed = ExerciseReport("mean_nll", 2, [CheckResult("a check", True)], seed=77)
    assert "seed" not in text_report(passed)


@pytest.mark.slow
def test_class_grading_keeps_challenges_in_their_own_columns(tmp_path):
    course, folder = tmp_path / "course", tmp_path / "submissions"
    released_course(course, CHAPTER)
    released = course / "release" / CHAPTER / f"{CHAPTER}.ipynb"
    good = reference_code(CHAPTER)
    skipped = dict(good)
    skipped.pop(f"{CHALLENGE}_code")  # the released stub: raises NotImplementedError
    wrong = dict(
        good,
        **{
            f"{CHALLENGE}_code": replace_function(
                good[f"{CHALLENGE}_code"], CHALLENGE, "return counts / counts.sum()"
            )
        },
    )
    for student, code in {"solver": good, "skipper": skipped, "wrong": wrong}.items():
        submission(released, folder / student / f"{CHAPTER}.ipynb", code)
    collect(course, folder)
    for step in (["autograde"], ["feedback"]):
        done = course_command(*step, "--root", str(course))
        assert done.returncode == 0, done.stderr[-3000:]
    done = course_command("export", "--root", str(course), "--to", str(course / "grades.csv"))
    assert done.returncode == 0, done.stderr[-3000:]
    with (course / "grades.csv").open() as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    column = f"{CHALLENGE} (extra credit)"
    for student, extra in {"solver": 2.0, "skipper": 0.0, "wrong": 0.0}.items():
        row = rows[student]
        assert float(row[CHAPTER]) == float(row["total"]) == float(row["max_total"]) == 7.0
        assert float(row[column]) == float(row["extra_credit"]) == extra, (student, row)

    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        assignment = gradebook.find_assignment(CHAPTER)
        assert assignment.max_score == 7.0, "nbgrader's maximum is the regular points alone"
        solver = gradebook.find_submission(CHAPTER, "solver")
        assert solver.score == 9.0, "nbgrader's extra credit adds to the score, not the maximum"
        grade = gradebook.find_grade(CHALLENGE, CHAPTER, CHAPTER, "solver")
        assert (grade.max_score, grade.auto_score, grade.extra_credit) == (0.0, 0.0, 2.0)
        assert gradebook.find_submission(CHAPTER, "wrong").score == 7.0

    page = (course / "feedback" / "solver" / CHAPTER / f"{CHAPTER}.html").read_text()
    assert f"{CHALLENGE} (challenge, extra credit): 2/2 points" in page
    autograded = json.loads(
        (course / "autograded" / "wrong" / CHAPTER / f"{CHAPTER}.ipynb").read_text()
    )
    cell = next(
        c
        for c in autograded["cells"]
        if c["metadata"].get("nbgrader", {}).get("grade_id") == CHALLENGE
    )
    assert "(challenge, extra credit): 0/2 points" in "".join(cell["outputs"][0]["text"])
