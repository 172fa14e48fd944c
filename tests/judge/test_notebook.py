"""Reading notebooks: nbformat and nbgrader's cell rules, loaded only where notebooks are read."""

import json
import subprocess

import pytest
from conftest import PYTHON, REPO

from autograder.judge.exercises import chapter_exercises
from autograder.judge.notebook import MAX_NOTEBOOK_BYTES, read_notebook, student_sources

SOLUTION = REPO / "solutions" / "01_bigram_counting.ipynb"
NAMES = {e.name for e in chapter_exercises("01_bigram_counting") if not e.extra}


@pytest.mark.parametrize(
    "module", ["autograder.kernel", "autograder.judge.runner", "autograder.cli.student"]
)
def test_the_kernel_side_does_not_load_nbformat_or_nbgrader(module):
    probe = (
        f"import sys, {module}\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'nbformat', 'nbgrader', 'jsonschema'}))"
    )
    done = subprocess.run([PYTHON, "-c", probe], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def write(tmp_path, notebook: object):
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(notebook))
    return path


@pytest.mark.parametrize(
    "notebook, why",
    [
        ("not json at all", "not a Jupyter notebook"),
        ({"nbformat": 3, "nbformat_minor": 0, "metadata": {}}, "not a Jupyter notebook"),
        ({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"source": 7}]}, "not a"),
        (
            {
                "nbformat": 4,
                "nbformat_minor": 5,
                "metadata": {},
                "cells": [
                    {
                        "cell_type": "code",
                        "id": "a",
                        "source": "x = 1",
                        "metadata": {"nbgrader": "locked"},
                        "outputs": [],
                        "execution_count": None,
                    }
                ],
            },
            "nbgrader's a mapping",
        ),
        (
            '{"nbformat": 4, "nbformat_minor": 5, "metadata": {"x": "\\ud800"}, "cells": []}',
            "lone surrogate",
        ),
    ],
    ids=["text", "nbformat-3", "source-not-text", "nbgrader-metadata-not-a-mapping", "surrogate"],
)
def test_what_is_not_a_notebook_is_a_value_error(tmp_path, notebook, why):
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook if isinstance(notebook, str) else json.dumps(notebook))
    with pytest.raises(ValueError, match=why):
        read_notebook(path)


def test_a_symbolic_link_or_a_huge_file_is_refused(tmp_path):
    (tmp_path / "link.ipynb").symlink_to(SOLUTION)
    with pytest.raises(ValueError, match="symbolic link"):
        read_notebook(tmp_path / "link.ipynb")
    huge = tmp_path / "huge.ipynb"
    with huge.open("wb") as handle:
        handle.truncate(MAX_NOTEBOOK_BYTES + 1)
    with pytest.raises(ValueError, match="larger than"):
        read_notebook(huge)


def test_the_students_code_is_every_cell_but_the_locked_ones(tmp_path):
    notebook = read_notebook(SOLUTION)
    sources = student_sources(notebook, NAMES)
    assert sum("def bigram_counts(" in source for source in sources) == 1
    assert not any("run_checks" in source for source in sources), "test cells are locked"
    assert not any("import numpy" in source for source in sources), "the set-up cell is locked"


def test_stripped_metadata_is_matched_against_the_release(tmp_path):
    raw = json.loads(SOLUTION.read_text())
    for cell in raw["cells"]:
        cell["metadata"] = {}
    stripped = read_notebook(write(tmp_path, raw))
    released = read_notebook(SOLUTION)
    assert student_sources(stripped, NAMES, released) == student_sources(released, NAMES, released)


WRAPPED_DRAFT = '''def mean_nll(probs, words, stoi):
    """The draft word by word, its three bugs undone around it: the axes, the end, the weights."""
    nats = [mean_nll_draft(probs.T, [word + "."], stoi) for word in words]
    counts = [len(word) + 1 for word in words]
    return sum(n * c for n, c in zip(nats, counts)) / sum(counts)
'''


def test_a_debug_exercises_draft_runs_with_the_students_cells(tmp_path):
    """A draft is handed out in a locked cell, and a solution may call it, as it can when the
    notebook runs top to bottom: the draft runs with the student's cells (fair before strict),
    unless it was edited, which only the released cell's source can tell."""
    from autograder.judge.runner import grade_notebook

    raw = json.loads(SOLUTION.read_text())
    (cell,) = [
        cell
        for cell in raw["cells"]
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "mean_nll_code"
    ]
    cell["source"] = WRAPPED_DRAFT
    path = write(tmp_path, raw)
    released = read_notebook(REPO / "chapters" / "01_bigram_counting.ipynb")
    sources = student_sources(read_notebook(path), NAMES, released)
    assert sum("def mean_nll_draft(" in source for source in sources) == 1
    assert not any("draft_value" in source for source in sources), "the draft's check is locked"
    graded = grade_notebook(path, chapter="01_bigram_counting", released=released)
    (report,) = [r for r in graded if r.exercise == "mean_nll"]
    assert report.passed, [(r.name, r.hint) for r in report.results if not r.passed]
    (draft,) = [
        cell
        for cell in raw["cells"]
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "mean_nll_draft"
    ]
    draft["source"] = draft["source"] + ["\n# edited"]
    edited = student_sources(read_notebook(write(tmp_path, raw)), NAMES, released)
    assert not any("def mean_nll_draft(" in source for source in edited)


def test_without_a_release_only_a_draft_that_matches_its_checksum_runs(tmp_path):
    """`make grade` on the student's own copy has no release to compare with: nbgrader's checksum
    of the released cell tells an unedited draft from one edited in place, as class grading does."""
    raw = json.loads((REPO / "chapters" / "01_bigram_counting.ipynb").read_text())
    kept = student_sources(read_notebook(write(tmp_path, raw)), NAMES)
    assert sum("def mean_nll_draft(" in source for source in kept) == 1
    (draft,) = [
        cell
        for cell in raw["cells"]
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "mean_nll_draft"
    ]
    draft["source"] = "".join(draft["source"]).replace(
        "[following, previous]", "[previous, following]"
    )
    edited = student_sources(read_notebook(write(tmp_path, raw)), NAMES)
    assert not any("def mean_nll_draft(" in source for source in edited)
