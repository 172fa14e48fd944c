"""Every chapter, as released and solved with the reference answers, runs top to bottom at full size
(every figure the text quotes is asserted) in the student kit's own kernel, with the kit's library as
it is re-issued just before the chapter's deadline: what its students run while it is open.

The source notebooks' hidden-test cells only call `autograder.kernel.run_checks`
(tests/judge/test_hidden_test_cells.py); the checks they run on the references are proven in
tests/checks/test_autograder_catalogue.py.
"""

import shutil
from pathlib import Path

import nbformat
import pytest
from conftest import KIT_KERNEL, REPO, NotebookClient
from support.kit_env import outside_env
from support.simulate import reference_code, submission

from autograder.course.directory import chapters
from autograder.kit.stages import hold_back

pytestmark = pytest.mark.slow


def staged_library(kit: Path, chapter: str, folder: Path) -> Path:
    """A folder holding the kit's library as re-issued just before `chapter`'s deadline (the
    answers of the chapters before it), beside the kit's data: first on the kernel's path."""
    released = chapters()[: chapters().index(chapter)]
    shutil.copytree(kit / "proof_lm", folder / "proof_lm")
    for path in (folder / "proof_lm").glob("*.py"):  # the kit's cut copy, restored from the source
        shutil.copyfile(REPO / "proof_lm" / path.name, path)
    hold_back(folder / "proof_lm", released)
    (folder / "data").symlink_to(kit / "data")
    return folder


def full_size_env(**extra: str) -> dict[str, str]:
    """The kit's environment (outside_env) with nothing that shrinks the demonstrations."""
    env = outside_env(**extra)
    for name in ("PROOF_LM_DEMO", "NBGRADER_EXECUTION"):
        env.pop(name, None)
    return env


@pytest.mark.parametrize("chapter", chapters())
def test_released_notebook_runs_solved_in_the_kit_at_full_size(
    chapter: str, kit: Path, kit_python: Path, tmp_path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("JUPYTER_PATH", str(kit_python.parent.parent / "share" / "jupyter"))
    library = staged_library(kit, chapter, tmp_path / "stage")
    answered = submission(
        kit / "notebooks" / f"{chapter}.ipynb",
        tmp_path / f"{chapter}.ipynb",
        reference_code(chapter),
    )
    notebook = nbformat.read(answered, as_version=4)
    where = nbformat.v4.new_code_cell(
        "import sys, proof_lm, proof_lm.demo\n"
        "print(sys.executable, proof_lm.__file__, proof_lm.demo.full_size())"
    )
    notebook.cells.insert(0, where)
    client = NotebookClient(
        notebook, kernel_name=KIT_KERNEL, timeout=600, resources={"metadata": {"path": tmp_path}}
    )
    try:
        client.execute(env=full_size_env(PYTHONPATH=str(library)))
    finally:  # kept in the test's folder: each cell's outputs and timing, for a failure or a slow run
        nbformat.write(notebook, answered)
    python, package, full = where.outputs[0]["text"].split()
    assert python == str(kit_python), "not the kit's kernel"
    assert package == str(library / "proof_lm" / "__init__.py"), "not the staged library"
    assert full == "True", "the demonstrations ran at the reduced size: no figure was asserted"
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code), "a cell did not run"
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]
    tests = [c for c in code if c.metadata.get("nbgrader", {}).get("grade") is True]
    assert tests, f"{chapter}: no visible test cell"
    images = [o for c in code for o in c.outputs if "image/png" in o.get("data", {})]
    assert images, "a chapter without a single figure"
