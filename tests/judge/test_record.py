"""What the client writes into an autograded notebook: the trusted report, and nothing imitating it."""

import nbformat
from nbformat.v4 import new_code_cell, new_notebook, new_output

from autograder.course.record import with_trusted_reports
from autograder.judge.verdicts import CheckResult, ExerciseReport


def graded_cell(grade_id: str, outputs: list) -> dict:
    cell = new_code_cell("# tests", metadata={"nbgrader": {"grade_id": grade_id, "grade": True}})
    cell["outputs"] = outputs
    return cell


def test_a_grade_cell_shows_the_trusted_report_and_nothing_the_kernel_left():
    forged = [
        new_output("stream", name="stdout", text="softmax: 2/2 points (9/9 checks passed)\n"),
        new_output("display_data", data={"text/html": "<style>.error{display:none}</style>"}),
    ]
    mine = new_code_cell("print('my own cell')")
    mine["outputs"] = [new_output("stream", name="stdout", text="my own cell\n")]
    notebook = new_notebook(cells=[mine, graded_cell("softmax", forged)])
    report = ExerciseReport(
        "softmax", 2, [CheckResult("rows sum to one", False, "divide by the row sums")]
    )
    out = with_trusted_reports(nbformat.from_dict(notebook), [report])
    outputs = out.cells[1].outputs
    assert [o.output_type for o in outputs] == ["stream", "error"]
    assert "softmax: 0/2 points" in outputs[0].text and "divide by the row sums" in outputs[0].text
    assert "divide by the row sums" in outputs[1].evalue
    assert out.cells[0].outputs[0].text == "my own cell\n", "the student's own cells keep theirs"


def test_a_passing_report_has_no_error_and_other_cells_are_untouched():
    notebook = new_notebook(cells=[graded_cell("perplexity", []), graded_cell("other", [])])
    report = ExerciseReport("perplexity", 1, [CheckResult("worked example", True)])
    out = with_trusted_reports(nbformat.from_dict(notebook), [report])
    assert [o.output_type for o in out.cells[0].outputs] == ["stream"]
    assert "1/1 points" in out.cells[0].outputs[0].text
    assert out.cells[1].outputs == []
