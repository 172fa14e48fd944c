"""What the client writes for each graded submission: the autograded notebook, the gradebook, the
flags, and the trusted reports as data (`COURSE/verdicts/<student>/<chapter>.json`, what `make
report` reads).

Only the client writes into the course directory. For each task's result (`task.Graded`) it puts
the trusted grader's report into the autograded notebook (in each exercise's grade cell, which
nbgrader recorded without running), lets nbgrader's own `SaveAutoGrades` record the
submission, and then sets every exercise's score to the trusted grader's. The reasons to flag:
what the trusted grader saw (timeouts, crashes, memory, exits), nbgrader's run failing, what the
file shows, and what collect recorded (files handed in beside it, a change after collection).
"""

import contextlib
import json
import warnings
from pathlib import Path

from autograder.course.directory import db_url
from autograder.course.flags import Reason
from autograder.course.outputs import cap_notebook
from autograder.course.page_notebook import safe_notebook
from autograder.course.printable import printable
from autograder.course.task import Graded
from autograder.judge.exercises import chapter_exercises
from autograder.judge.report import as_json, hints_line, loading_report, text_report
from autograder.judge.verdicts import ExerciseReport


def _report_outputs(report: ExerciseReport, loading: str = "") -> list[dict]:
    """The trusted report as notebook outputs: the notes on loading (`loading`, for the first
    exercise only), its text, and an error (each cause of failure once) when it failed."""
    from nbformat.v4 import new_output

    text = text_report(report, loading=False) + "\n"
    outputs = [
        new_output("stream", name="stdout", text=f"{loading}\n\n{text}" if loading else text)
    ]
    if not report.earned:
        hints = hints_line(report.results) or "; ".join(report.notes)
        evalue = f"{report.exercise} failed the trusted grader's checks. {hints}"
        outputs.append(
            new_output("error", ename="AssertionError", evalue=evalue, traceback=[evalue])
        )
    return outputs


def with_trusted_reports(notebook: dict, reports: list[ExerciseReport]) -> dict:
    """`notebook` with each exercise's grade cell showing the trusted report, and nothing else.

    Whatever a grade cell held is replaced: the report cannot be imitated beside the real one. The
    notes on the student's cells that failed while loading are stated once, in the first grade
    cell. The student's own cells keep the outputs their graded run showed.
    """
    by_name = {report.exercise: report for report in reports}
    loading = loading_report(reports)
    for cell in notebook.get("cells", []):
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if isinstance(grade_id, str) and grade_id in by_name and cell.get("cell_type") == "code":
            cell["outputs"] = _report_outputs(by_name[grade_id], loading)
            loading = ""
    return notebook


def _ensure_submission(
    gradebook: object, chapter: str, student: str, folder: Path | None = None
) -> None:
    """The student and their submission exist in the gradebook (as nbgrader's autograde creates them).

    The hand-in's time is nbgrader's `timestamp.txt` in its folder, when there is one (as nbgrader's
    autograde reads it; `collect --from-server` writes it), so nbgrader counts it late or on time.
    """
    gradebook.update_or_create_student(student)
    timestamp = folder / "timestamp.txt" if folder is not None else None
    if timestamp is not None and timestamp.is_file():
        from nbgrader.utils import parse_utc

        at = parse_utc(timestamp.read_text().strip())
        gradebook.update_or_create_submission(chapter, student, timestamp=at)
    else:
        gradebook.update_or_create_submission(chapter, student)


def _save_autogrades(db_url: str, chapter: str, student: str, notebook: object) -> None:
    """nbgrader's SaveAutoGrades on the autograded notebook: grades and comments of every cell."""
    from nbgrader.preprocessors import SaveAutoGrades

    resources = {
        "nbgrader": {
            "db_url": db_url,
            "assignment": chapter,
            "notebook": chapter,
            "student": student,
        }
    }
    SaveAutoGrades().preprocess(notebook, resources)


def _set_scores(gradebook: object, chapter: str, student: str, earned: dict[str, float]) -> None:
    """Every exercise's automatic score is the trusted grader's (0 where it has none); a challenge's is extra credit."""
    from nbgrader.api import MissingEntry

    for exercise in chapter_exercises(chapter):
        with contextlib.suppress(MissingEntry):
            grade = gradebook.find_grade(exercise.name, chapter, chapter, student)
            score = float(earned.get(exercise.name, 0.0))
            # A challenge's cell is worth 0 points (the chapter's maximum stays the regular one);
            # what it earns is nbgrader's extra credit, which adds to the score and not the maximum.
            grade.auto_score = 0.0 if exercise.extra else score
            grade.extra_credit = score if exercise.extra else None
            grade.manual_score = None
            grade.needs_manual_grade = False


def record(root: Path, gradebook: object, graded: Graded, reasons: list[str]) -> list[str]:
    """Write one graded submission into the course (notebook, gradebook); all the reasons to flag it.

    `reasons`: what is already known against it (collect's records); the flag covers them too.
    Each reason comes back as one printable line (`printable`): parts of it may be a student's.
    """
    from sqlalchemy.exc import SAWarning

    with warnings.catch_warnings():
        # nbgrader's update_or_create_submission warns about its own autoflush; nothing to act on
        warnings.simplefilter("ignore", SAWarning)
        reasons = [printable(reason) for reason in _record(root, gradebook, graded, reasons)]
    keep_verdicts(root, graded, reasons)
    return reasons


VERDICTS = "verdicts"  # COURSE/verdicts/<student>/<chapter>.json: the trusted reports as data


def verdicts_data(graded: Graded, reasons: list[str]) -> dict:
    """What is kept of one graded submission: the trusted reports (None: not a readable notebook) and its flags."""
    return {
        "student": graded.student,
        "chapter": graded.chapter,
        "sha256": graded.sha256,
        "reports": None if graded.reports is None else [as_json(r) for r in graded.reports],
        "flags": reasons,
    }


def keep_verdicts(root: Path, graded: Graded, reasons: list[str]) -> Path:
    """Write the trusted reports of one graded submission as JSON (replaced whole, at once); its path."""
    folder = root / VERDICTS / graded.student
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{graded.chapter}.json"
    temporary = folder / f".{graded.chapter}.json.tmp"
    temporary.write_text(json.dumps(verdicts_data(graded, reasons), indent=1, sort_keys=True))
    temporary.replace(path)
    return path


def _record(root: Path, gradebook: object, graded: Graded, known: list[str]) -> list[str]:
    reasons = [*known, *graded.flags]
    if graded.reports is not None and not graded.ran:
        reasons.append(Reason.NBGRADER_FAILED.say())
    for report in graded.reports or []:
        reasons += [Reason.GRADER.say(report.exercise, flag) for flag in report.flags]
    submitted = root / "submitted" / graded.student / graded.chapter
    _ensure_submission(gradebook, graded.chapter, graded.student, submitted)
    gradebook.db.commit()
    if graded.autograded is not None and graded.reports is not None:
        import nbformat

        notebook = nbformat.reads(graded.autograded.decode("utf-8"), as_version=4)
        notebook = with_trusted_reports(cap_notebook(notebook), graded.reports)
        # what the formgrader and the feedback render: nothing in it can become script
        notebook = nbformat.from_dict(safe_notebook(notebook))
        folder = root / "autograded" / graded.student / graded.chapter
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{graded.chapter}.ipynb"
        # nbgrader leaves its copy read-only (0444) for a user who is not root: replace, not rewrite
        target.unlink(missing_ok=True)
        target.write_text(nbformat.writes(notebook))
        _save_autogrades(db_url(root), graded.chapter, graded.student, notebook)
    earned = {report.exercise: report.earned for report in graded.reports or []}
    _set_scores(gradebook, graded.chapter, graded.student, earned)
    mark_flagged(gradebook, graded.chapter, graded.student, bool(reasons))
    gradebook.db.commit()
    return reasons


def mark_flagged(gradebook: object, chapter: str, student: str, flagged: bool) -> None:
    """Set the submission's flag in the gradebook (the formgrader shows it)."""
    from nbgrader.api import MissingEntry

    with contextlib.suppress(MissingEntry):
        gradebook.find_submission_notebook(chapter, chapter, student).flagged = flagged
