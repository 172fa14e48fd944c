"""Notes a student can place: a failed cell is named by its number in the notebook and its first
line, stated once per submission, and one cause of failure is said once with the checks it broke."""

import json

import nbformat
from conftest import REPO
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.course.record import with_trusted_reports
from autograder.judge.notebook import cell_label
from autograder.judge.report import html_report, loading_notes, loading_report, text_report
from autograder.judge.runner import grade_notebook
from autograder.judge.verdicts import CheckResult, ExerciseReport

CHAPTER = "01_bigram_counting"
HINT = "twice the derivative: how far apart are the two points you evaluate?"


def test_a_failed_cell_is_named_by_its_number_in_the_notebook_and_its_first_line(tmp_path):
    # a cell of the student's own, after markdown and locked cells the grader does not run
    notebook = json.loads((REPO / "solutions" / f"{CHAPTER}.ipynb").read_text())
    position = 9
    notebook["cells"][position:position] = [
        new_markdown_cell("My own check:"),
        new_code_cell("\n# my own check of the counts\ntotal = undefined_name + 1\n"),
    ]
    path = tmp_path / f"{CHAPTER}.ipynb"
    path.write_text(json.dumps(notebook))
    reports = grade_notebook(path, seed=1)
    # the cell is the notebook's cell `position + 2` (1 for the first); among the cells the
    # grader runs it is a smaller number, which a student cannot find
    assert all(report.loading == reports[0].loading for report in reports)
    (note,) = loading_notes(reports)
    assert note == (
        f'cell {position + 2} of the notebook (it begins "# my own check of the counts"), '
        "line 3: NameError: name 'undefined_name' is not defined"
    )
    assert all(report.passed for report in reports), "the failed statement costs no exercise"


def test_a_note_on_loading_is_stated_once_per_submission():
    note = cell_label(14, "x = relative_error(a, b)\n") + ", line 1: NameError: name ..."
    reports = [
        ExerciseReport(name, 2, [CheckResult("a check", True)], loading=[note])
        for name in ("bigram_counts", "bigram_probs", "mean_nll")
    ]
    grade = {"nbgrader": {"grade": True}}
    notebook = new_notebook(
        cells=[
            new_code_cell("# tests", metadata={"nbgrader": {**grade, "grade_id": r.exercise}})
            for r in reports
        ]
    )
    out = with_trusted_reports(nbformat.from_dict(notebook), reports)
    shown = [output.get("text", "") for cell in out.cells for output in cell.outputs]
    assert (
        sum(text.count('cell 14 of the notebook (it begins "x = relative_error') for text in shown)
        == 1
    )
    assert note in shown[0], "stated in the first grade cell"
    assert sum(text_report(r, loading=False).count(note) for r in reports) == 0
    assert loading_report(reports).count(note) == 1
    assert html_report("Feedback", reports).count("relative_error") == 1
    assert note in text_report(reports[0]), "a report of one exercise alone keeps its notes"


def test_a_first_line_is_cut_and_printable():
    assert (
        cell_label(3, "\n\n   print('hi')\nmore")
        == "cell 3 of the notebook (it begins \"print('hi')\")"
    )
    label = cell_label(4, "y = 1  # " + "x" * 200 + "\x1b[31m")
    assert len(label) < 120 and label.endswith('…")') and "\x1b" not in label
    assert cell_label(5, "   \n") == "cell 5"


def test_one_cause_is_stated_once_with_the_checks_it_broke():
    results = [CheckResult(f"x of shape ({n},)", False, HINT) for n in range(1, 14)]
    results.insert(3, CheckResult("a 0-d x", True))
    results.append(CheckResult("a transposed x", False, "the perturbation went to a copy"))
    report = ExerciseReport("numerical_gradient", 2, results)
    text = text_report(report)
    assert text.count(HINT) == 1 and "FAIL 13 checks, one cause (x of shape (1,) | " in text
    assert text.count("the perturbation went to a copy") == 1 and "PASS a 0-d x" in text
    assert text.index("FAIL 13") < text.index("PASS a 0-d x") < text.index("FAIL a transposed")
    notebook = new_notebook(
        cells=[
            new_code_cell(
                "", metadata={"nbgrader": {"grade": True, "grade_id": "numerical_gradient"}}
            )
        ]
    )
    (cell,) = with_trusted_reports(nbformat.from_dict(notebook), [report]).cells
    said = cell.outputs[1].evalue
    assert said.count(HINT) == 1 and "13 checks, one cause" in said, said
    assert html_report("Feedback", [report]).count("how far apart") == 1
    assert all(r.hint == HINT for r in results[:3]), "each check keeps its hint"
