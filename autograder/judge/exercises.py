"""The graded exercises, derived from the declarations at the top of their check modules.

An exercise is declared once, by `EXERCISE = Exercise(...)` in its check module
(`autograder/judge/checks/<name in snake case>.py`, see `autograder.judge.declaration`); the
declarations are read without importing the modules (so without PyTorch), and ordered as the
chapters and, within one, as the exercises' solution cells in `solutions/<chapter>.ipynb`.
"""

import json
from pathlib import Path

from autograder.judge.declaration import KINDS, TORCH_CHAPTERS, Exercise, read_declaration
from autograder.paths import REPO, SOLUTIONS

__all__ = ["EXERCISES", "KINDS", "TORCH_CHAPTERS", "Exercise", "chapter_exercises", "get_exercise"]

CHECKS = REPO / "autograder" / "judge" / "checks"


def declarations(checks: Path = CHECKS) -> list[Exercise]:
    """Every exercise declared by a check module in the folder `checks`, in the files' order."""
    found = [read_declaration(path) for path in sorted(checks.glob("*.py"))]
    return [exercise for exercise in found if exercise is not None]


def notebook_order(chapter: str, solutions: Path = SOLUTIONS) -> list[str]:
    """The grade ids of a chapter's solution cells (`<name>_code`), as its source notebook has them."""
    path = solutions / f"{chapter}.ipynb"
    if not path.is_file():
        return []
    cells = json.loads(path.read_text())["cells"]
    ids = [cell["metadata"].get("nbgrader", {}).get("grade_id", "") for cell in cells]
    return [grade_id.removesuffix("_code") for grade_id in ids if grade_id.endswith("_code")]


def _ordered(exercises: list[Exercise]) -> dict[str, Exercise]:
    """{name: exercise} by chapter, then as the chapter's notebook orders them (undeclared there: last)."""
    orders = {chapter: notebook_order(chapter) for chapter in {e.chapter for e in exercises}}

    def place(exercise: Exercise) -> tuple:
        order = orders[exercise.chapter]
        index = order.index(exercise.name) if exercise.name in order else len(order)
        return exercise.chapter, index, exercise.name

    named: dict[str, Exercise] = {}
    for exercise in sorted(exercises, key=place):
        if exercise.name in named:
            raise ValueError(f"exercise {exercise.name!r} is declared twice")
        named[exercise.name] = exercise
    return named


EXERCISES = _ordered(declarations())


def regular_points() -> int:
    """The regular total: every exercise's points except the challenges' (extra credit)."""
    return sum(exercise.points for exercise in EXERCISES.values() if not exercise.extra)


def chapter_exercises(chapter: str) -> list[Exercise]:
    """The exercises of one chapter, in notebook order."""
    return [exercise for exercise in EXERCISES.values() if exercise.chapter == chapter]


def get_exercise(name: str) -> Exercise:
    """The exercise called `name`; ValueError naming the known ones otherwise."""
    if name not in EXERCISES:
        raise ValueError(f"unknown exercise {name!r}; known: {', '.join(EXERCISES)}")
    return EXERCISES[name]
