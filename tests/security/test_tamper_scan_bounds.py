"""The tamper scan reads untrusted text on the trusted side: linear in a cell's size, bounded, never fatal.

The payloads the review found: one cell of thousands of `!true` lines (IPython re-tokenizes the
whole cell for each, minutes of CPU) and one of 501 (IPython gives up with a RuntimeError, which
made `make autograde` exit 1). Each is now scanned like any cell; a scan that hits its bounds or
fails is a flag on that submission alone ("could not be scanned"), and the submission is graded.
"""

import json

import pytest
from support.classes import CHAPTER, course_command, honest_class, totals
from support.simulate import reference_code, submission

from autograder.course import tamper_scan
from autograder.course.collect import collect

BANG_LINES = "!true\n" * 20_500  # 123 KB
FIVE_HUNDRED_AND_ONE = "!true\n" * 501
# IPython's own reading is the only one left when the quick one fails: 501 escapes and a syntax
# error make it give up (RuntimeError) inside the bounded scan
GIVES_UP = FIVE_HUNDRED_AND_ONE + "(\n"


def _notebook(*sources: str) -> dict:
    cells = [{"cell_type": "code", "metadata": {}, "source": s, "outputs": []} for s in sources]
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def test_escaped_lines_are_read_as_ipython_reads_them():
    from IPython.core.inputtransformer2 import TransformerManager

    cell = (
        "import os\n!ls -l\nfiles = !ls\n%time x = 1\nwho = %who_ls\nif True:\n    %xmode Verbose\n"
        "os?\nos.system('x')\n"
    )
    assert tamper_scan.python_text(cell) == TransformerManager().transform_cell(cell)


def test_thousands_of_escapes_scan_in_one_pass():
    released = _notebook()
    findings = tamper_scan.scan_bounded(released, _notebook(BANG_LINES + "import os\nos.fork()\n"))
    assert findings == [
        (None, "cell 1, line 20502: calls os.fork, which changes files or starts processes")
    ]


def test_five_hundred_and_one_escapes_are_no_error():
    assert tamper_scan.scan_source(FIVE_HUNDRED_AND_ONE + "import ctypes\n") == [
        "line 502: imports ctypes, which a solution never needs"
    ]


def test_a_scan_that_fails_or_hits_its_bounds_says_so(monkeypatch):
    with pytest.raises(tamper_scan.ScanFailed, match="exit status"):
        tamper_scan.scan_bounded(_notebook(), _notebook(GIVES_UP))
    monkeypatch.setattr(tamper_scan, "SCAN_SECONDS", 0.05)
    with pytest.raises(tamper_scan.ScanFailed, match="longer than"):
        tamper_scan.scan_bounded(_notebook(), _notebook("x = 1\n"))


@pytest.mark.slow
def test_an_unscannable_notebook_is_flagged_and_graded_beside_its_class(tmp_path):
    course, folder = tmp_path / "course", tmp_path / "submissions"
    honest_class(course, folder, ["alice"])
    released = course / "release" / CHAPTER / f"{CHAPTER}.ipynb"

    def extra_cells(notebook: dict) -> None:
        # (a cell of thousands of escapes would make the kernel and the grader's own IPython
        # reading run out of time: a cost to that submission alone, but not what is tested here)
        cell = {"cell_type": "code", "metadata": {}, "source": GIVES_UP, "outputs": []}
        notebook["cells"].insert(1, cell)

    submission(
        released, folder / "mallory" / f"{CHAPTER}.ipynb", reference_code(CHAPTER), extra_cells
    )
    collect(course, folder)
    done = course_command("autograde", "--root", str(course))
    assert done.returncode == 0, done.stderr[-3000:]
    assert totals(course) == {"alice": 7.0, "mallory": 7.0}
    flags = json.loads((course / "flags.json").read_text())
    assert "alice" not in flags
    assert any("could not be scanned" in flag for flag in flags["mallory"][CHAPTER]), flags
