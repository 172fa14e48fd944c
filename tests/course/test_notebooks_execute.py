"""Every solved chapter runs top to bottom in a real Jupyter kernel, every asserted figure included."""

import nbformat
import pytest
from conftest import REPO, NotebookClient

from autograder.course.directory import chapters

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("chapter", chapters())
def test_solution_notebook_executes(chapter, tmp_path):
    notebook = nbformat.read(REPO / "solutions" / f"{chapter}.ipynb", as_version=4)
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    ).execute()
    errors = [
        o
        for c in notebook.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == "error"
    ]
    assert not errors
    images = [
        o
        for c in notebook.cells
        if c.cell_type == "code"
        for o in c.outputs
        if "image/png" in o.get("data", {})
    ]
    assert images, "a chapter without a single figure"
