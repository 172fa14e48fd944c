"""A notebook cell waiting for an exercise not there yet says which, in one line (proof_lm.waiting)."""

import nbformat
from conftest import NotebookClient

from autograder.kit.stages import STUB

CELLS = [
    "import proof_lm",
    "def bigram_probs(counts, k=0.0):\n    raise NotImplementedError()",
    "P = bigram_probs([[1, 2]])  # a demonstration after the exercise",
    STUB.replace("{ANSWERS}", "an exercise not yet due: bpe_train (chapter 09_tokenization)")
    + "\nbpe_train = _answer_key('bpe_train')\nbpe_train('abc', 300)",
    "raise NotImplementedError('not a notebook function')",
    "def broken():\n    return 1 / 0\nbroken()",
]


def test_a_cell_waiting_for_an_exercise_says_which_in_one_line(tmp_path):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in CELLS])
    NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": tmp_path}},
    ).execute()
    errors = [[o for o in c.outputs if o.output_type == "error"] for c in notebook.cells]
    assert [len(e) for e in errors] == [0, 0, 1, 1, 1, 1]  # each still an error: the cell fails
    (waits,), (held,), (other,), (bug,) = errors[2:]
    assert waits.ename == "NotImplementedError" and len(waits.traceback) == 1
    assert "waits for `bigram_probs`, an exercise not solved yet" in waits.traceback[0]
    assert held.ename == "HeldBack" and len(held.traceback) == 1
    assert held.traceback[0].startswith("HeldBack: __main__.bpe_train answers an exercise not yet")
    assert "bpe_train (chapter 09_tokenization)" in held.traceback[0]
    # any other error keeps its whole traceback
    assert len(other.traceback) > 1 and len(bug.traceback) > 1 and bug.ename == "ZeroDivisionError"
