"""Print how long things take: each solved chapter top to bottom, each exercise's hidden checks.

    make benchmark            # or: .venv/bin/python benchmarks/run.py [--repeat 3]

Budgets (COURSE.md): a chapter in at most 60 s on 2 cores (07_attention: 90 s); all hidden checks of a full submission
in at most 20 s. This script prints figures; no test asserts a wall-clock time.
"""

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from autograder.course.directory import chapters
from autograder.judge.exercises import chapter_exercises
from autograder.judge.notebook import read_notebook, student_sources
from autograder.judge.runner import check_source, grade_notebook

REPO = Path(__file__).resolve().parent.parent


def time_notebook(path: Path) -> float:
    """Seconds to execute one notebook top to bottom in a fresh kernel (kernel start included)."""
    notebook = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory() as scratch:
        start = time.perf_counter()
        NotebookClient(
            notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": scratch}}
        ).execute()
        return time.perf_counter() - start


def main() -> None:
    """Run every measurement and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs per measurement (the median is shown)"
    )
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}  repeat: {args.repeat}")
    print("\nsolution notebooks, top to bottom (budget 60 s each, 90 s for 07_attention)")
    for chapter in chapters():
        runs = [time_notebook(REPO / "solutions" / f"{chapter}.ipynb") for _ in range(args.repeat)]
        print(f"  {chapter:<24} {statistics.median(runs):6.2f} s")
    print("\nhidden checks of each exercise, trusted process (process start included)")
    print(f"  {'exercise':<24} {'sandbox':>8} {'no sandbox':>11} {'sandbox cost':>13}")
    total = {True: 0.0, False: 0.0}
    for chapter in chapters():
        path = REPO / "solutions" / f"{chapter}.ipynb"
        exercises = chapter_exercises(chapter)
        sources = student_sources(read_notebook(path), {e.name for e in exercises})
        for exercise in exercises:
            median = {}
            for sandboxed in (True, False):
                runs = []
                for _ in range(args.repeat):
                    start = time.perf_counter()
                    report = check_source(exercise, sources, sandboxed=sandboxed)
                    runs.append(time.perf_counter() - start)
                assert report.passed, exercise.name
                median[sandboxed] = statistics.median(runs)
                total[sandboxed] += median[sandboxed]
            print(
                f"  {exercise.name:<24} {median[True]:7.2f}s {median[False]:10.2f}s "
                f"{median[True] - median[False]:+12.2f}s  ({len(report.results)} checks)"
            )
    print(
        f"  {'sum':<24} {total[True]:7.2f}s {total[False]:10.2f}s {total[True] - total[False]:+12.2f}s"
    )
    print("\nself-grade of each full solution notebook (2 workers; budget for all chapters 20 s)")
    whole = 0.0
    for chapter in chapters():
        start = time.perf_counter()
        grade_notebook(REPO / "solutions" / f"{chapter}.ipynb")
        elapsed = time.perf_counter() - start
        whole += elapsed
        print(f"  {chapter:<24} {elapsed:6.2f} s")
    print(f"  {'all chapters':<24} {whole:6.2f} s")


if __name__ == "__main__":
    main()
