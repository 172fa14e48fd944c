"""The reference solutions of every exercise and each chapter's set-up, read from the source notebooks
in `solutions/`."""

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


@functools.cache
def set_up_source(chapter: str) -> str:
    """The source of `chapter`'s locked set-up cell (grade id "setup"): what its solution cells may
    use, run before them wherever they are graded (the demonstrations' own set-up is another cell)."""
    for cell in read_notebook(SOLUTIONS / f"{chapter}.ipynb")["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "setup":
            return cell_source(cell)
    raise ValueError(f"{chapter}: expected a locked set-up cell with grade id 'setup'")
