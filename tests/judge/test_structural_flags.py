"""Flags read off a submitted file against the released notebook (nbgrader's checksums of locked cells)."""

import copy
import json

import pytest
from conftest import REPO

from autograder.course.task import structural_flags

RELEASED = json.loads((REPO / "chapters" / "01_bigram_counting.ipynb").read_text())


def locked(notebook: dict, graded: bool) -> dict:
    return next(
        cell
        for cell in notebook["cells"]
        if cell["metadata"].get("nbgrader", {}).get("locked")
        and bool(cell["metadata"]["nbgrader"].get("grade")) == graded
    )


def test_an_untouched_copy_raises_nothing():
    assert structural_flags(RELEASED, copy.deepcopy(RELEASED)) == []


@pytest.mark.parametrize(
    "change",
    [
        lambda cell: cell.update(source="print('mine')"),
        lambda cell: cell["metadata"]["nbgrader"].update(points=100),
        lambda cell: cell["metadata"]["nbgrader"].update(points="lots"),
        lambda cell: cell.update(cell_type="markdown"),
    ],
)
def test_a_changed_locked_test_cell_is_flagged(change):
    submitted = copy.deepcopy(RELEASED)
    cell = locked(submitted, graded=True)
    change(cell)
    grade_id = cell["metadata"]["nbgrader"]["grade_id"]
    assert structural_flags(RELEASED, submitted) == [f"locked cell {grade_id} edited"]


def test_deleted_and_stripped_cells_are_flagged():
    submitted = copy.deepcopy(RELEASED)
    cell = locked(submitted, graded=False)
    submitted["cells"].remove(cell)
    grade_id = cell["metadata"]["nbgrader"]["grade_id"]
    assert structural_flags(RELEASED, submitted) == [
        f"locked cell {grade_id} deleted (or its metadata stripped)"
    ]
    for each in submitted["cells"]:
        each["metadata"].pop("nbgrader", None)
    assert structural_flags(RELEASED, submitted) == ["nbgrader metadata stripped from every cell"]
