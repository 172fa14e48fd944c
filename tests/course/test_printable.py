"""Instructor-side printouts of student-controlled names, and the cap on a notebook's outputs.

Through the real flow (`collect`, `autograde`, `feedback`, `export` on a release of chapter 01): a
student hands in files whose names hold terminal escapes, a newline that forges a `FLAGGED` line
and a right-to-left override, beside a notebook that floods its output; a classmate hands in
correct code. Every line printed names one submission, no control character reaches the terminal,
`flags.json` or `grades.csv`, and the autograded notebook and feedback page stay small.
"""

import csv
import json
import subprocess
import sys
import unicodedata

import pytest
from conftest import released_course
from support.simulate import reference_code, submission

from autograder.course.outputs import NOTEBOOK_CHARS
from autograder.course.printable import printable
from autograder.kit import client

CHAPTER = "01_bigram_counting"
NAMES = [
    "\x1b[2J\x1b[31mred\x1b[0m.txt",  # clear the screen, colour
    f"notes\nFLAGGED honest {CHAPTER}: plagiarism\n.txt",  # a forged line
    "report\u202etxt.exe",  # shows as "reportexe.txt"
    "bell\x07\r.txt",
]
# 30 MB printed (ipykernel sends it in a few large messages) and 600 outputs of 50,000 characters
FLOOD = (
    "from IPython.display import display\n"
    "for i in range(600):\n"
    "    print('x' * 50_000)\n"
    "for i in range(600):\n"
    "    display({'text/plain': 'y' * 50_000}, raw=True)\n"
)


def controls(text: str) -> list[str]:
    """The control, format and separator characters in `text` (newlines between lines aside)."""
    return [
        repr(c)
        for line in text.split("\n")
        for c in line
        if unicodedata.category(c)[0] in "CZ" and c != " "
    ]


@pytest.mark.parametrize("printable", [printable, client.printable], ids=["course", "kit"])
def test_printable_escapes_what_would_change_the_terminal(printable):
    # the instructor's and the student kit's (which holds nothing of autograder): one rule
    for name in NAMES:
        shown = printable(name, limit=500)
        assert not controls(shown) and "\n" not in shown, shown
        assert printable(shown, limit=500) == shown  # idempotent
    assert printable(NAMES[0]) == "\\x1b[2J\\x1b[31mred\\x1b[0m.txt"
    assert printable(NAMES[2]) == "report\\u202etxt.exe"
    assert printable("Zoë 名前 ok") == "Zoë 名前 ok"
    assert printable("x" * 1000, limit=10) == "x" * 10 + "... (990 more characters)"


def test_the_kit_and_the_instructor_print_every_character_alike():
    characters = [chr(n) for n in [*range(0x3400), *range(0xFE00, 0x10000), 0x1F600, 0xE0001]]
    assert [client.printable(c) for c in characters] == [printable(c) for c in characters]


def course(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "autograder.cli.instructor", *args], capture_output=True, text=True
    )
    assert done.returncode == 0, f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr[-3000:]}"
    return done.stdout + done.stderr


@pytest.mark.slow
def test_names_print_escaped_and_an_output_flood_stays_bounded(tmp_path):
    root = tmp_path / "course"
    released_course(root, CHAPTER)
    released = root / "release" / CHAPTER / f"{CHAPTER}.ipynb"
    hand_ins = tmp_path / "in"
    submission(released, hand_ins / "honest" / released.name, reference_code(CHAPTER))

    def flood(notebook: dict) -> None:
        cell = {"cell_type": "code", "metadata": {}, "source": FLOOD, "outputs": []}
        notebook["cells"].insert(1, {**cell, "execution_count": None})

    submission(released, hand_ins / "eve" / released.name, reference_code(CHAPTER), flood)
    for name in NAMES:
        (hand_ins / "eve" / name).write_text("handed in beside the notebook")
    printed = course("collect", "--root", str(root), str(hand_ins))
    printed += course("autograde", "--root", str(root), CHAPTER)
    course("feedback", "--root", str(root), CHAPTER)
    course("export", "--root", str(root), "--to", str(tmp_path / "grades.csv"))

    assert not controls(printed), controls(printed)
    flagged = [line for line in printed.splitlines() if line.startswith("FLAGGED")]
    assert len(flagged) == 1 and flagged[0].startswith(f"FLAGGED eve {CHAPTER}: "), flagged
    for name in NAMES:
        assert printable(repr(name)) in flagged[0]  # collect records unsafe names by repr()
    reasons = json.loads((root / "flags.json").read_text())
    assert set(reasons) == {"eve"}, reasons
    assert not controls(json.dumps(reasons, ensure_ascii=False).replace("\\n", "\n"))
    assert all(not controls(r) for r in reasons["eve"][CHAPTER])
    with (tmp_path / "grades.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["student"] for row in rows] == ["eve", "honest"]
    assert all(not controls(value) for row in rows for value in row.values())
    assert rows[0]["flags"].count("handed in files") == 1 and rows[1]["flags"] == ""

    autograded = root / "autograded" / "eve" / CHAPTER / f"{CHAPTER}.ipynb"
    pages = list((root / "feedback" / "eve" / CHAPTER).glob("*.html"))
    assert autograded.is_file() and len(pages) == 1, flagged
    page = pages[0]
    # the flood alone is 60,000,000 characters: both stay near the cap
    assert autograded.stat().st_size < NOTEBOOK_CHARS * 1.5, autograded.stat().st_size
    assert page.stat().st_size < NOTEBOOK_CHARS * 1.5, page.stat().st_size
    notebook = json.loads(autograded.read_text())
    notes = [
        o.get("text", "")
        for c in notebook["cells"]
        for o in c.get("outputs", [])
        if "not shown" in str(o.get("text", ""))
    ]
    assert notes, "no note says outputs were left out"
    scores = {row["student"]: float(row[CHAPTER]) for row in rows}
    assert scores["eve"] == scores["honest"] > 0  # the flood costs no points
    print(f"autograded {autograded.stat().st_size:,} bytes, feedback {page.stat().st_size:,} bytes")
