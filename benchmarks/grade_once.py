"""The trusted grader on each chapter's solved notebook: once per submission against once per exercise.

    .venv/bin/python benchmarks/grade_once.py [--chapters 01_bigram_counting ...] [--work 5]

For each chapter, the student's code of `solutions/CHAPTER.ipynb` is graded in the OS sandbox
(1) as the grader does it (`grade_sources`: the code loads once per environment, each exercise is
checked in a copy) and (2), the anchor, with one grading process per exercise that loads the code
itself (`check_source` in turn: what the grader did before it graded once). With `--work S` every
submission also gets a cell of the student's own that computes for S CPU-seconds (their own
training, say). Both ways are run once untimed first (the sandbox's package copies are built on
first use). Prints wall seconds for both, their ratio, and the points earned (full marks both
ways, or the run says so).
"""

import argparse
import time
from pathlib import Path

from autograder.judge.exercises import EXERCISES, chapter_exercises
from autograder.judge.notebook import read_notebook, student_sources
from autograder.judge.runner import check_source, grade_sources

REPO = Path(__file__).resolve().parent.parent
WORK = (
    "import time\n_t = time.process_time()\nwhile time.process_time() - _t < {seconds}:\n    pass\n"
)


def main() -> None:
    """Time both ways for every chapter asked for and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    chapters = sorted({exercise.chapter for exercise in EXERCISES.values()})
    parser.add_argument("--chapters", nargs="*", default=chapters)
    parser.add_argument("--work", type=float, default=0.0, help="CPU-s of top-level work added")
    args = parser.parse_args()
    print(f"{'chapter':<20} {'once (s)':>9} {'per exercise (s)':>17} {'ratio':>6}  points")
    for chapter in args.chapters:
        exercises = chapter_exercises(chapter)
        names = {exercise.name for exercise in exercises}
        sources = student_sources(read_notebook(REPO / "solutions" / f"{chapter}.ipynb"), names)
        if args.work:
            sources.append(WORK.format(seconds=args.work))
        grade_sources(chapter, sources, seed=1)  # untimed: builds the sandbox's copies
        for exercise in exercises:
            check_source(exercise, sources, seed=1)
        started = time.monotonic()
        once = grade_sources(chapter, sources, seed=1)
        middle = time.monotonic()
        each = [check_source(exercise, sources, seed=1) for exercise in exercises]
        end = time.monotonic()
        points = sum(r.earned for r in once), sum(r.earned for r in each)
        total = sum(e.points for e in exercises)
        print(
            f"{chapter:<20} {middle - started:>9.1f} {end - middle:>17.1f} "
            f"{(middle - started) / (end - middle):>6.2f}  {points[0]}/{total} and {points[1]}/{total}"
        )


if __name__ == "__main__":
    main()
