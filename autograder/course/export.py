"""Exporting grades: one CSV row per student with points per chapter, total, flags and sandbox."""

import contextlib
import csv
import json
from pathlib import Path

from autograder.course.printable import printable
from autograder.exercises import chapter_exercises


def export_csv(root: Path, to: Path, chapters: list[str]) -> Path:
    """One row per student: points per chapter (autograded exercises), the total, and the flags."""
    from nbgrader.api import Gradebook, MissingEntry

    flags = json.loads((root / "flags.json").read_text()) if (root / "flags.json").exists() else {}
    with (
        Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook,
        to.open("w", newline="") as handle,
    ):
        writer = csv.writer(handle)
        writer.writerow(["student", *chapters, "total", "max_total", "flagged", "flags", "sandbox"])
        sandboxed = _graded_with_sandbox(root)
        maximum = sum(e.points for chapter in chapters for e in chapter_exercises(chapter))
        for student in sorted(s.id for s in gradebook.students):
            points = []
            for chapter in chapters:
                total = 0.0
                for exercise in chapter_exercises(chapter):
                    with contextlib.suppress(MissingEntry):
                        total += (
                            gradebook.find_grade(exercise.name, chapter, chapter, student).score
                            or 0.0
                        )
                points.append(total)
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
    return export_csv(
        root, to, sorted({path.name for path in (root / "source").iterdir() if path.is_dir()})
    )
