"""The instructor's class report (`make report`): where the class is stuck, which hand-ins look copied.

Not part of grading: nothing here decides a score or a flag, so a change here re-grades nothing
(`autograde.grading_files` reads `course/*.py`, not this package).
"""

from pathlib import Path

from autograder.course.report.page import render, write_csv
from autograder.course.report.similarity import THRESHOLD, Part, chapter_pairs, solution_cells
from autograder.course.report.stats import Kept, course_kept, diagnosis_rows

REPORT, DIAGNOSES = "report.html", "diagnoses.csv"


def course_pairs(root: Path, chapters: list[str], threshold: float = THRESHOLD) -> list[Part]:
    """The similar pairs of each chapter (and its exercises) among the course's collected notebooks."""
    from autograder.judge.exercises import chapter_exercises
    from autograder.judge.notebook import read_notebook

    pairs = []
    for chapter in chapters:
        released = read_notebook(root / "release" / chapter / f"{chapter}.ipynb")
        names = [exercise.name for exercise in chapter_exercises(chapter)]
        cells = {}
        for path in sorted((root / "submitted").glob(f"*/{chapter}/{chapter}.ipynb")):
            try:  # each notebook's solution cells kept, never the whole notebook
                cells[path.parent.parent.name] = solution_cells(read_notebook(path), names)
            except (ValueError, FileNotFoundError):  # not a notebook: nothing to compare
                continue
        pairs += chapter_pairs(chapter, released, cells, names, threshold)
    return pairs


def write_report(
    root: Path,
    first: list[Kept] | None = None,
    last: list[Kept] | None = None,
    threshold: float = THRESHOLD,
) -> tuple[Path, Path]:
    """COURSE/report.html and COURSE/diagnoses.csv from the course's kept reports (and the
    server's first and latest submissions, when given); their paths."""
    kept = course_kept(root)
    if not kept:
        raise ValueError(f"no graded submissions in {root}: run make autograde first")
    pairs = course_pairs(root, sorted({one.chapter for one in kept}), threshold)
    page = root / REPORT
    page.write_text(render(kept, pairs, "Class report", first, last), encoding="utf-8")
    table = root / DIAGNOSES
    write_csv(diagnosis_rows(kept, first, last), table)
    return page, table
