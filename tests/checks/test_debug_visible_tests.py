"""A debug exercise's visible tests catch the draft as handed out, and let at least one of its planted
bugs through: that one shows only through the student's own tests or a hidden check's symptom."""

import json
import runpy

import pytest
from conftest import IMPLEMENTATIONS, REPO

from autograder.judge.exercises import EXERCISES
from autograder.judge.references import reference_solutions

# The chapters held to this so far, with the demonstration cells each exercise's visible tests read.
DEMOS = {
    "bigram_counts": (),
    "mean_nll": (),
    "context_windows": ("context_windows_draft", "context_windows_draft_check"),
    "nplm_loss": (),
    "linear_loss_and_grad": (),
    "top_p_probs": (),
    "sample_next": (),
    "get_batch": (),
    "generate": (),
    "sgd_train": (),
    "batchnorm_forward": (),
    "causal_attention": (),
    "multi_head_attention": (),
    "layer_norm": (),
    "bpe_train": (),
    "bpe_encode": ("demo_008",),
    "bpe_decode": ("demo_008", "demo_013"),
}


def _cells(chapter: str) -> dict[str, str]:
    """The code of each cell of the source notebook, by grade id."""
    notebook = json.loads((REPO / "solutions" / f"{chapter}.ipynb").read_text())
    return {
        cell["metadata"]["nbgrader"]["grade_id"]: "".join(cell["source"])
        for cell in notebook["cells"]
        if cell["cell_type"] == "code" and "nbgrader" in cell["metadata"]
    }


def _passes_visible_tests(name: str, variant: str) -> bool:
    """Whether the catalogued `variant` of exercise `name` passes the notebook's visible tests."""
    cells = _cells(EXERCISES[name].chapter)
    namespace: dict = {}
    exec(cells["setup"], namespace)
    exec(cells["setup_demos"], namespace)
    for other, code in reference_solutions(EXERCISES[name].chapter).items():
        if other != name:  # the demonstrations may call the chapter's other exercises
            exec(code, namespace)
    for grade_id in DEMOS[name]:
        exec(cells[grade_id], namespace)
    # a variant may call the chapter's other exercises, as the notebook it is handed in from does
    variant_path = str(IMPLEMENTATIONS / name / f"{variant}.py")
    namespace[name] = runpy.run_path(variant_path, init_globals=namespace)[name]
    visible = cells[name].split("### END HIDDEN TESTS", 1)[1]
    try:
        exec(visible, namespace)
    except (
        AssertionError,
        ValueError,
        TypeError,
    ):  # a TypeError: a draft that cannot take the input
        return False
    return True


@pytest.mark.parametrize("name", sorted(DEMOS))
def test_the_visible_tests_catch_the_draft_and_miss_one_of_its_bugs(name):
    assert EXERCISES[name].kind == "debug"
    assert not _passes_visible_tests(name, "wrong_draft_as_given")
    left = sorted(path.stem for path in (IMPLEMENTATIONS / name).glob("wrong_draft_*_left.py"))
    assert len(left) >= 2
    surviving = [variant for variant in left if _passes_visible_tests(name, variant)]
    assert surviving, f"every planted bug of {name}'s draft is caught by its visible tests"
    assert _passes_visible_tests(name, "correct_draft_fixed")
