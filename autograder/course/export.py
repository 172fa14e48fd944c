"""Exporting grades: one CSV row per student with points per chapter, total, flags and sandbox."""

import csv
import json
from pathlib import Path

from autograder.course.collect import REFUSED
from autograder.course.directory import released_chapters
from autograder.course.flags import Reason
from autograder.course.printable import printable, spreadsheet_cell
from autograder.course.scores import exercise_score
from autograder.judge.exercises import chapter_exercises


def export_csv(root: Path, to: Path, chapters: list[str]) -> Path:
    """One row per student: points per chapter (autograded exercises), the total, and the flags.

    Challenges (extra credit) are left out of the chapters' points, the total and the maximum;
    each has a column of its own ("<name> (extra credit)") and their sum is `extra_credit`.
    Every student of the gradebook, every one flagged and every one whose hand-in collect refused
    (`refused`) has a row: a hand-in never graded is there, flagged with the reason.
    """
    from nbgrader.api import Gradebook

    flags = json.loads((root / "flags.json").read_text()) if (root / "flags.json").exists() else {}
    refusals = refused(root)
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

        students = {s.id for s in gradebook.students} | set(flags) | set(refusals)
        for student in sorted(students):
            points = [
                sum(
                    exercise_score(gradebook, e, student)
                    for e in chapter_exercises(chapter)
                    if not e.extra
                )
                for chapter in chapters
            ]
            extra = [exercise_score(gradebook, e, student) for e in challenges]
            reasons = [
                printable(f"{chapter}: {reason}")
                for chapter, items in [*flags.get(student, {}).items(), *refusals.get(student, [])]
                for reason in items
            ]
            writer.writerow(
                [
                    spreadsheet_cell(student),
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


def refused(root: Path) -> dict[str, list[tuple[str, list[str]]]]:
    """The hand-ins collect refused and that still stand (COURSE/collected.json), as flags by
    student: (chapter, or "every chapter" for a refused folder, [reason])."""
    path = root / "collected.json"
    entries = json.loads(path.read_text()).get(REFUSED, []) if path.exists() else []
    found: dict[str, list[tuple[str, list[str]]]] = {}
    for entry in entries:
        reason = Reason.REFUSED.say(entry["why"])
        found.setdefault(entry["student"], []).append(
            (entry["chapter"] or "every chapter", [reason])
        )
    return found


def _graded_with_sandbox(root: Path) -> bool:
    """Whether the last autograde of this course ran student code in the OS sandbox."""
    path = root / "autograde.json"
    return bool(json.loads(path.read_text()).get("sandbox", False)) if path.exists() else True


def export(root: Path, to: Path) -> Path:
    """One row per student: points per chapter, total and flags (CSV)."""
    return export_csv(root, to, released_chapters(root))
