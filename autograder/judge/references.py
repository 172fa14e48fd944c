"""The reference solutions of every exercise, read from the source notebooks in `solutions/`."""

import functools

from autograder.judge.notebook import cell_source, read_notebook
from autograder.paths import SOLUTIONS

MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


@functools.cache
def reference_solutions(chapter: str) -> dict[str, str]:
    """{exercise: the source of its solution cell, markers removed} for one chapter."""
    from nbgrader.utils import is_solution

    solutions = {}
    for cell in read_notebook(SOLUTIONS / f"{chapter}.ipynb")["cells"]:
        grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id", "")
        if is_solution(cell) and cell["cell_type"] == "code" and grade_id.endswith("_code"):
            lines = cell_source(cell).splitlines(keepends=True)
            kept = [line for line in lines if line.strip() not in MARKERS]
            solutions[grade_id.removesuffix("_code")] = "".join(kept)
    return solutions
