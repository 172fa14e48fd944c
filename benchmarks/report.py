"""Time and memory of `make report` for a large class: the similarity pass and the page.

    .venv/bin/python benchmarks/report.py [--students 300] [--chapters 01_bigram_counting ...]

No grading here (300 x 9 notebooks would take hours on 2 cores): the similarity pass reads the
students' solution cells, and the page reads the kept reports, so both are built directly.
(1) Similarity, per chapter: every student's solution cells drawn from the catalogue
(tests/implementations: each exercise's files, names renamed per student as a copier would),
for growing class sizes (pairs grow as n(n-1)/2). The catalogue's files are small variants of
one another, so many pairs are listed: this measures time and memory, not what is flagged (the
test of the report does, tests/course/test_class_report.py).
(2) The worst a student can do to it: every student's code at the cap (`similarity.MAX_CHARS`
characters of distinct code per chapter).
(3) The page and the CSV for the whole class from kept reports with random failures.
Peak memory is the process's resident maximum (ru_maxrss) after each part. This script prints
figures; no test asserts a wall-clock time.
"""

import argparse
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support.report_class import copied

from autograder.course.directory import chapters
from autograder.course.report.page import pairs_section, render, write_csv
from autograder.course.report.similarity import MAX_CHARS, chapter_pairs, solution_cells
from autograder.course.report.stats import Kept, diagnosis_rows
from autograder.judge.exercises import chapter_exercises
from autograder.judge.verdicts import CheckResult, ExerciseReport
from autograder.paths import REPO

CATALOGUE = REPO / "tests" / "implementations"


def peak_mb() -> float:
    """The process's peak resident memory so far, in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def notebook(cells: dict[str, str]) -> dict:
    """A notebook holding `cells` (grade id -> source) as solution cells."""
    return {
        "cells": [
            {"cell_type": "code", "metadata": {"nbgrader": {"grade_id": g}}, "source": s}
            for g, s in cells.items()
        ]
    }


def released(chapter: str) -> dict:
    """The chapter's released notebook (chapters/ is what nbgrader releases)."""
    import nbformat

    return nbformat.read(REPO / "chapters" / f"{chapter}.ipynb", as_version=4)


def catalogue_class(chapter: str, students: int, rng: random.Random) -> dict[str, dict]:
    """Each student's notebook: for each exercise a catalogue file, its names renamed."""
    notebooks = {}
    for number in range(students):
        cells = {}
        for exercise in chapter_exercises(chapter):
            files = sorted((CATALOGUE / exercise.name).glob("*.py"))
            if files:
                cells[f"{exercise.name}_code"] = copied(rng.choice(files).read_text(), rng)
        notebooks[f"s{number:03d}"] = notebook(cells)
    return notebooks


def capped_class(chapter: str, students: int, rng: random.Random) -> dict[str, dict]:
    """Every student's code at the cap: distinct random statements, MAX_CHARS characters a chapter."""
    names = [e.name for e in chapter_exercises(chapter)]
    notebooks = {}
    for number in range(students):
        lines, size = [], 0
        while size < MAX_CHARS:
            line = f"v{rng.randrange(10**6)} = w{rng.randrange(10**6)} * {rng.random():.6f}\n"
            lines.append(line)
            size += len(line)
        code = "".join(lines)
        share = len(code) // len(names) + 1
        notebooks[f"s{number:03d}"] = notebook(
            {f"{name}_code": code[i * share : (i + 1) * share] for i, name in enumerate(names)}
        )
    return notebooks


def similarity(chapter_list: list[str], sizes: list[int], seed: int) -> None:
    """Time the similarity pass per chapter for growing classes, then at the cap."""
    rng = random.Random(seed)
    for students in sizes:
        total, listed, parts = 0.0, 0, []
        for chapter in chapter_list:
            notebooks = catalogue_class(chapter, students, rng)
            start = time.perf_counter()
            names = [e.name for e in chapter_exercises(chapter)]
            cells = {s: solution_cells(nb, names) for s, nb in notebooks.items()}
            pairs = chapter_pairs(chapter, released(chapter), cells, names)
            total += time.perf_counter() - start
            listed += sum(len(part.pairs) for part in pairs)
            parts += pairs
        print(
            f"similarity, {students} students x {len(chapter_list)} chapters (catalogue code): "
            f"{total:.1f} s ({total / len(chapter_list):.2f} s a chapter, "
            f"{students * (students - 1) // 2} pairs a chapter, {listed} listed, "
            f"{len(pairs_section(parts, True)) / 1e6:.1f} MB of HTML for them); peak {peak_mb():.0f} MB"
        )
    students = sizes[-1]
    chapter = chapter_list[0]
    notebooks = capped_class(chapter, students, rng)
    start = time.perf_counter()
    names = [e.name for e in chapter_exercises(chapter)]
    chapter_pairs(
        chapter,
        released(chapter),
        {s: solution_cells(nb, names) for s, nb in notebooks.items()},
        names,
    )
    spent = time.perf_counter() - start
    print(
        f"similarity at the cap ({MAX_CHARS} characters a student), {students} students, one "
        f"chapter: {spent:.1f} s; x {len(chapter_list)} chapters: about {spent * len(chapter_list):.0f} s;"
        f" peak {peak_mb():.0f} MB"
    )


def kept_class(chapter_list: list[str], students: int, rng: random.Random) -> list[Kept]:
    """Kept reports with random failures: each exercise failed by 20 % of the class, one of three hints."""
    kept = []
    for number in range(students):
        for chapter in chapter_list:
            reports = []
            for exercise in chapter_exercises(chapter):
                passed = rng.random() > 0.2
                hint = "" if passed else f"the classic slip number {rng.randrange(3)}"
                reports.append(
                    ExerciseReport(
                        exercise.name,
                        exercise.points,
                        [CheckResult("a check", passed, hint)],
                        extra=exercise.extra,
                    )
                )
            kept.append(Kept(f"s{number:03d}", chapter, reports))
    return kept


def page(chapter_list: list[str], students: int, seed: int) -> None:
    """Time the page and the CSV for the whole class."""
    kept = kept_class(chapter_list, students, random.Random(seed))
    start = time.perf_counter()
    html = render(kept, [], "Class report")
    with tempfile.TemporaryDirectory() as scratch:
        write_csv(diagnosis_rows(kept), Path(scratch, "diagnoses.csv"))
    spent = time.perf_counter() - start
    print(
        f"page and CSV, {students} students x {len(chapter_list)} chapters: {spent:.1f} s, "
        f"{len(html) / 1e6:.1f} MB of HTML; peak {peak_mb():.0f} MB"
    )


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--chapters", nargs="*", default=chapters())
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    sizes = sorted({max(2, args.students // 4), max(2, args.students // 2), args.students})
    page(args.chapters, args.students, args.seed)
    similarity(args.chapters, sizes, args.seed)


if __name__ == "__main__":
    main()
