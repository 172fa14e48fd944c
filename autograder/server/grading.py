"""One submission graded on a Dask worker, with its feedback page: what `make autograde` and `make feedback` do.

`grade_with_feedback` runs `task.grade_submission` (the trusted grader's one run of the student's
code, then nbgrader's autograde recording it without executing anything, in a scratch course of
the task's own), and in that same scratch course makes the feedback page as `make feedback` does:
`record.record` (the trusted reports put into the autograded notebook, nbgrader's
SaveAutoGrades), nbgrader's GenerateFeedback with the course's configuration (hidden tests and the
mark scheme cleared, the notebook sanitized) and the page's Content-Security-Policy
(`page_policy.add_policy`). Nothing of the instructor's course directory or gradebook is touched: the
result goes back to the server, which alone writes it into its own database.
"""

import time
from dataclasses import dataclass, field
from pathlib import Path

from autograder.course.directory import db_url
from autograder.course.flags import Reason
from autograder.course.page_policy import add_policy
from autograder.course.record import record
from autograder.course.scores import chapter_score
from autograder.course.task import Graded, Job, Release, grade_submission
from autograder.judge.exercises import chapter_exercises
from autograder.judge.report import as_json


@dataclass(frozen=True)
class ServerGrade:
    """What the server stores for a graded submission."""

    graded: bool  # False: the submission could not be graded (see flags)
    points: float | None
    max_points: float | None
    exercises: list[dict] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    feedback: str | None = None  # the feedback page (HTML, with its CSP)
    seconds: float = 0.0
    stages: dict[str, float] = field(default_factory=dict)  # seconds: scan, grade, record, feedback
    # the chapter's written answers, which the instructor grades: {"answer", "points", "earned": None}
    written: list[dict] = field(default_factory=list)
    reports: list[dict] | None = None  # the trusted reports as data (`judge.report.as_json`)


def exercise_rows(chapter: str, graded: Graded) -> list[dict]:
    """One row per exercise of the chapter, in notebook order: its points, what it earned, passed."""
    reports = {report.exercise: report for report in graded.reports or []}
    rows = []
    for exercise in chapter_exercises(chapter):
        report = reports.get(exercise.name)
        rows.append(
            {
                "exercise": exercise.name,
                "points": float(exercise.points),
                "earned": float(report.earned) if report else 0.0,
                "passed": bool(report and report.passed and not report.tampered),
                "extra": exercise.extra,  # a challenge: extra credit, not in the score
            }
        )
    return rows


def _generate_feedback(root: Path, job: Job) -> str:
    """nbgrader's GenerateFeedback for the one autograded notebook in `root`; the page, CSP added."""
    from autograder.course.nbgrader_api import nbgrader_api

    api = nbgrader_api(root)
    result = api.generate_feedback(job.chapter, job.student, force=True)
    page = root / "feedback" / job.student / job.chapter / f"{job.chapter}.html"
    if not result["success"] or not page.is_file():
        raise RuntimeError(
            f"nbgrader generate_feedback failed: {(result.get('error') or '')[-500:]}"
        )
    return add_policy(page.read_text(encoding="utf-8"))


def grade_with_feedback(
    job: Job, release: Release, seed: int, sandboxed: bool, scratch: str | None = None
) -> ServerGrade:
    """Grade one submission (the same seed gives the same result) and make its feedback page."""
    made: dict[str, object] = {"page": None, "reasons": [], "written": []}

    def feedback(root: Path, graded: Graded) -> None:
        """Record the trusted reports in the task's scratch course and make the page there."""
        from nbgrader.api import Gradebook

        clock = time.perf_counter()
        with Gradebook(db_url(root)) as gradebook:
            made["reasons"] = record(root, gradebook, graded, [])
            made["written"] = [
                {"answer": answer.answer, "points": answer.points, "earned": answer.given}
                for answer in chapter_score(gradebook, job.chapter, job.student).written
            ]
        if graded.autograded is not None:  # else nbgrader's run failed: the flags say why
            made["page"] = _generate_feedback(root, job)
        graded.stages["feedback"] = time.perf_counter() - clock

    graded = grade_submission(job, release, seed, sandboxed, scratch, then=feedback)
    if graded.reports is None:  # not a readable notebook after all: say why, no page
        flags = list(graded.flags) or [Reason.NBGRADER_FAILED.say()]
        return ServerGrade(False, None, None, [], flags, None, graded.seconds, graded.stages)
    rows = exercise_rows(job.chapter, graded)
    regular = [
        row for row, e in zip(rows, chapter_exercises(job.chapter), strict=True) if not e.extra
    ]
    return ServerGrade(
        True,
        sum(row["earned"] for row in regular),
        sum(row["points"] for row in regular),
        rows,
        made["reasons"],
        made["page"],
        graded.seconds,
        graded.stages,
        made["written"],
        [as_json(report) for report in graded.reports],
    )
