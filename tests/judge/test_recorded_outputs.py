"""nbgrader records without executing: the outputs shown are those of the one graded run.

A submission's code runs once, in the trusted grader's sandbox; nbgrader's autograde runs with its
execute step replaced, and the autograded notebook (what the formgrader and the feedback show) holds,
for each of the student's cells, what that run printed, returned, raised and drew — never the
outputs saved in the file, which anyone can edit — and nothing for the cells the grader did not
run. The trusted side reads that run's report of its outputs as untrusted data.
"""

import base64
import json
import time

import nbformat
import pytest
from conftest import released_course
from support.simulate import reference_code, submission

from autograder.course.autograde import release_data
from autograder.course.outputs import CapOutputs, shown_outputs
from autograder.course.task import Job, grade_submission
from autograder.sandbox.guest.outputs import Capture
from autograder.sandbox.guest.protocol import OUTPUT_CHARS, OUTPUTS, SHOWN_LIMIT

CHAPTER = "01_bigram_counting"
FORGED = "bigram_counts: 4/4 checks passed (FORGED)"
CELLS = {
    "print": "print('hello from', 6 * 7)\nimport sys\nprint('careful', file=sys.stderr)",
    "value": "answer = 6 * 7\nanswer",
    "quiet": "answer;",
    "error": "1 / 0\nprint('the next statement still runs')",
    "figure": "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.title('mine');",
    "figures": "import matplotlib.pyplot as plt\nfor k in range(25):\n    plt.figure()",
    "table": "from IPython.display import HTML, display\ndisplay(HTML('<b>mine</b>'))",
    "flood": f"print('x' * {3 * OUTPUT_CHARS})",
}


def _with_my_cells(notebook: dict) -> None:
    """The student's own cells after the last one, and a forged report saved in every code cell."""
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": FORGED}]
    for tag, source in CELLS.items():
        cell = nbformat.v4.new_code_cell(source, metadata={"tags": [tag]})
        cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": FORGED}]
        notebook["cells"].append(cell)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """A correct chapter 01 with the cells above, graded as a class's task is (sandboxed)."""
    tmp = tmp_path_factory.mktemp("recorded")
    course = tmp / "course"
    released_course(course, CHAPTER)
    released = course / "release" / CHAPTER / f"{CHAPTER}.ipynb"
    path = submission(released, tmp / "alice.ipynb", reference_code(CHAPTER), _with_my_cells)
    job = Job(CHAPTER, "alice", path.read_bytes())
    return grade_submission(job, release_data(course, [CHAPTER]), seed=3, sandboxed=True)


def _outputs(notebook: dict, tag: str) -> list[dict]:
    (cell,) = [c for c in notebook.cells if tag in c.metadata.get("tags", [])]
    return cell.outputs


def test_the_student_cells_show_what_the_graded_run_showed(graded):
    assert graded.ran, graded.error
    assert all(report.passed for report in graded.reports), [r.notes for r in graded.reports]
    notebook = nbformat.reads(graded.autograded.decode(), as_version=4)
    assert FORGED not in graded.autograded.decode()  # never the outputs saved in the file
    printed = _outputs(notebook, "print")
    assert [(o.output_type, o.name, o.text) for o in printed] == [
        ("stream", "stdout", "hello from 42\n"),
        ("stream", "stderr", "careful\n"),
    ]
    (value,) = _outputs(notebook, "value")
    assert value.output_type == "execute_result" and value.data == {"text/plain": "42"}
    assert _outputs(notebook, "quiet") == []  # a trailing semicolon shows nothing, as in Jupyter
    error, after = _outputs(notebook, "error")
    assert (error.output_type, error.ename) == ("error", "ZeroDivisionError")
    assert error.traceback == ["ZeroDivisionError: division by zero"]  # one line, no frames
    assert after.text == "the next statement still runs\n"
    (figure,) = _outputs(notebook, "figure")
    assert base64.b64decode(figure.data["image/png"]).startswith(b"\x89PNG\r\n\x1a\n")
    *drawn, note = _outputs(notebook, "figures")
    assert len(drawn) == 20 and note.text == "[5 more figures not shown]\n"
    (table,) = _outputs(notebook, "table")
    assert table.output_type == "display_data" and table.data["text/html"] == "<b>mine</b>"


def test_a_flood_of_output_is_cut_with_a_note(graded):
    notebook = nbformat.reads(graded.autograded.decode(), as_version=4)
    kept, note = _outputs(notebook, "flood")
    assert kept.text == "x" * OUTPUT_CHARS
    assert f"{2 * OUTPUT_CHARS + 1:,} more characters of output not shown" in note.text


def test_cells_the_grader_did_not_run_show_nothing(graded):
    notebook = nbformat.reads(graded.autograded.decode(), as_version=4)
    locked = [
        cell
        for cell in notebook.cells
        if cell.cell_type == "code"
        and cell.metadata.get("nbgrader", {}).get("locked")
        and not cell.metadata["nbgrader"].get("grade")
    ]
    assert locked and all(cell.outputs == [] for cell in locked)


def _lines(*items: object) -> bytes:
    return "\n".join(json.dumps(item) for item in items).encode()


@pytest.mark.parametrize(
    "payload",
    [
        b"not json",
        b"[" * 100_000 + b"]" * 100_000,  # deeper than the parser goes
        _lines([2, {"output_type": "stream", "name": "stdout", "text": "no third cell"}]),
        _lines([-1, {"output_type": "stream", "name": "stdout", "text": "no such cell"}]),
        _lines({"0": {"output_type": "stream", "name": "stdout", "text": "not a line"}}),
        _lines(
            [
                0,
                {
                    "output_type": "stream",
                    "name": "stdout",
                    "text": "x",
                    "a": {"b": {"c": {"d": {}}}},
                },
            ]
        ),
        b"x" * (SHOWN_LIMIT + 1),
    ],
)
def test_a_payload_line_that_is_not_an_output_of_a_cell_shows_nothing(payload):
    assert shown_outputs(payload, 2) == [[], []]


def test_a_forged_payload_costs_time_and_memory_bounded_by_the_limits():
    error = [0, {"output_type": "error", "ename": "E", "evalue": ""}]
    many = _lines(*[error] * 1_000_000)[:SHOWN_LIMIT]  # what 8 MiB of tiny outputs holds
    started = time.process_time()
    (shown,) = shown_outputs(many, 1)
    assert len(shown) == OUTPUTS  # the rest is never parsed
    assert time.process_time() - started < 5, "linear in the bounds, not in the payload"


def test_only_well_formed_outputs_are_kept():
    image = base64.b64encode(b"\x89PNG\r\n\x1a\n....").decode()
    outputs = [
        {"output_type": "stream", "name": "stdout", "text": "fine"},
        {"output_type": "stream", "name": "stdin", "text": "no such stream"},
        {"output_type": "display_data", "data": {"image/png": image}},
        {"output_type": "display_data", "data": {"image/png": 'AAAA"><img onerror=x>'}},
        {"output_type": "display_data", "data": {"image/png": "A" * (10 * OUTPUT_CHARS + 4)}},
        {"output_type": "display_data", "data": {"image/svg+xml": "<svg onload=x/>"}},
        {"output_type": "display_data", "data": {"application/javascript": "alert(1)"}},
        {"output_type": "execute_result", "data": {"text/plain": 42}},
        {"output_type": "error", "ename": "E" * 1000, "evalue": "v" * (2 * OUTPUT_CHARS)},
        "not a dict",
    ]
    shown, nothing = shown_outputs(_lines(*[[0, output] for output in outputs]), 2)
    assert nothing == []
    stream, figure, error = shown
    assert stream.text == "fine" and figure.data == {"image/png": image}  # the rest is dropped
    assert len(error.ename) == 200 and error.evalue.startswith("v" * OUTPUT_CHARS)
    assert len(error.evalue) < OUTPUT_CHARS + 100


def test_an_image_is_kept_whole_when_outputs_are_capped():
    image = base64.b64encode(bytes(3 * OUTPUT_CHARS)).decode()  # a large figure, within bounds
    (shown,) = shown_outputs(
        _lines([0, {"output_type": "display_data", "data": {"image/png": image}}]), 1
    )
    CapOutputs.cap(shown[0])
    assert shown[0].data["image/png"] == image


def test_the_outputs_kept_are_bounded_in_number_inside_too():
    capture = Capture()
    capture.start_cell()
    for _ in range(3 * OUTPUTS):
        capture.display({"text/plain": ""}, raw=True)  # empty: nothing to show
        capture.error("E", "")
    assert len(capture.cells[0]) == OUTPUTS
    assert len(capture.payload()) < OUTPUTS * 200
