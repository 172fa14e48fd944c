"""Exporting grades: one CSV row per student with points per chapter, total, flags and sandbox."""

import contextlib
import csv
import json
from pathlib import Path

from autograder.course.directory import released_chapters
from autograder.course.printable import printable
from autograder.judge.exercises import Exercise, chapter_exercises


def exercise_points(grade: object | None, exercise: Exercise) -> float:
    """What an exercise's nbgrader grade counts: its score, a challenge's extra credit; 0 without one."""
    if grade is None:
        return 0.0
    return float((grade.extra_credit if exercise.extra else grade.score) or 0.0)


def export_csv(root: Path, to: Path, chapters: list[str]) -> Path:
    """One row per student: points per chapter (autograded exercises), the total, and the flags.

    Challenges (extra credit) are left out of the chapters' points, the total and the maximum;
    each has a column of its own ("<name> (extra credit)") and their sum is `extra_credit`.
    """
    from nbgrader.api import Gradebook, MissingEntry

    flags = json.loads((root / "flags.json").read_text()) if (root / "flags.json").exists() else {}
    challenges = [e for chapter in chapters for e in chapter_exercises(chapter) if e.extra]
    with (
        Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook,
        to.open("w", newline="") as handle,
    ):
        writer = csv.writer(handle)
        writer.writerow(
            [
                "student",
                *chapters,
                "total",
                "max_total",
                *(f"{e.name} (extra credit)" for e in challenges),
                "extra_credit",
                "flagged",
                "flags",
                "sandbox",
            ]
        )
        sandboxed = _graded_with_sandbox(root)
        maximum = sum(
            e.points for chapter in chapters for e in chapter_exercises(chapter) if not e.extra
        )

        def score(exercise: Exercise, student: str) -> float:
            with contextlib.suppress(MissingEntry):
                grade = gradebook.find_grade(
                    exercise.name, exercise.chapter, exercise.chapter, student
                )
                return exercise_points(grade, exercise)
            return 0.0

        for student in sorted(s.id for s in gradebook.students):
            points = [
                sum(score(e, student) for e in chapter_exercises(chapter) if not e.extra)
                for chapter in chapters
            ]
            extra = [score(e, student) for e in challenges]
            reasons = [
                printable(f"{chapter}: {reason}")
                for chapter, items in flags.get(student, {}).items()
                for reason in items
            ]
            writer.writerow(
                [
                    student,
                    *points,
                    sum(points),
                    maximum,
                    *extra,
                    sum(extra),
                    "yes" if reasons else "",
                    " | ".join(reasons),
                    "on" if sandboxed else "OFF (--no-sandbox)",
                ]
            )
    return to


def _graded_with_sandbox(root: Path) -> bool:
    """Whether the last autograde of this course ran student code in the OS sandbox."""
    path = root / "autograde.json"
    return bool(json.loads(path.read_text()).get("sandbox", False)) if path.exists() else True


def export(root: Path, to: Path) -> Path:
    """One row per student: points per chapter, total and flags (CSV)."""
    return export_csv(root, to, released_chapters(root))
