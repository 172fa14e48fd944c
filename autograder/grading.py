"""The grading API: a chapter's exercises checked against a student's code, each in its own sandboxed process."""

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from autograder.exercises import EXERCISES, chapter_exercises
from autograder.model import ExerciseReport
from autograder.notebook import read_notebook, student_sources
from autograder.runner import check_source, new_seed


def grade_sources(
    chapter: str,
    sources: list[str],
    workers: int = 2,
    seed: int | None = None,
    sandboxed: bool = True,
) -> list[ExerciseReport]:
    """Grade every exercise of `chapter` against `sources`, one new grading process (sandbox) each.

    One `seed` (chosen now unless given) draws the hidden cases of every exercise of this run.
    """
    exercises = chapter_exercises(chapter)
    seed = new_seed() if seed is None else seed
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(
            pool.map(
                lambda exercise: check_source(exercise, sources, seed=seed, sandboxed=sandboxed),
                exercises,
            )
        )


def grade_notebook(
    path: str | Path,
    chapter: str | None = None,
    seed: int | None = None,
    sandboxed: bool = True,
    released: dict | None = None,
) -> list[ExerciseReport]:
    """Grade a chapter notebook by the student's code cells (see `student_sources`); the chapter defaults to the file name."""
    path = Path(path)
    chapter = chapter or path.stem
    if not chapter_exercises(chapter):
        chapters = sorted({exercise.chapter for exercise in EXERCISES.values()})
        raise ValueError(
            f"no graded chapter called {chapter!r}; pass --chapter, one of {', '.join(chapters)}"
        )
    names = {exercise.name for exercise in chapter_exercises(chapter)}
    sources = student_sources(read_notebook(path), names, released)
    return grade_sources(chapter, sources, seed=seed, sandboxed=sandboxed)
