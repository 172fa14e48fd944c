"""No reference source reaches a student: not in the grading process's memory, not in its notes.

The grading process holds the chapter's other references (so that one bug costs one exercise), as
code the trusted parent compiled (no source text, no docstrings); it is not dumpable; and a note
quoting an exception is one short line. A student's code finds the reference
functions in the grading process's frames, looks for their source and docstrings, reads
/proc/self/mem (closed: the process is not dumpable), searches every object the garbage collector
knows for their source text, and raises a disassembly of them at load time: it finds no source,
and its note carries no disassembly.
"""

import json
import textwrap

from conftest import IMPLEMENTATIONS

from autograder.exercises import get_exercise
from autograder.runner import NOTES_SHOWN, check_source

CHAPTER, EXERCISE = "01_bigram_counting", "perplexity"
CORRECT = (IMPLEMENTATIONS / EXERCISE / "correct_loop.py").read_text()


FRAMES = """
import sys
frame, refs = sys._getframe(), []
while frame is not None and not refs:  # the grading process's own frames, read from student code
    refs = list(frame.f_locals.get("references", {}).values())
    frame = frame.f_back
"""

MEMORY = (
    FRAMES
    + """
import json
seen = {"refs": sorted(f.__name__ for f in refs), "docs": [f.__doc__ for f in refs]}
import inspect
try:
    inspect.getsource(refs[0])
    seen["getsource"] = "found"
except (OSError, TypeError, IndexError) as error:
    seen["getsource"] = type(error).__name__
try:
    open("/proc/self/mem", "rb")
    seen["mem"] = "ran"
except Exception as error:
    seen["mem"] = type(error).__name__
gc, wanted = __import__("gc"), "".join(["def ", "bigram_probs"])  # strings are read from their holders
seen["gc"] = sum(
    r is not wanted
    and isinstance(r, str | bytes)
    and wanted.encode() in (r.encode(errors="replace") if isinstance(r, str) else r)
    for o in gc.get_objects()
    for r in gc.get_referents(o)
)
raise RuntimeError("OBSERVED " + json.dumps(seen))
"""
)

DISASSEMBLY = (
    FRAMES
    + """
import dis
text = dis.Bytecode(refs[0]).dis()
raise RuntimeError(text)
"""
)


def test_the_grading_process_holds_no_reference_source():
    # the references are there (their code can be read), with no source and no docstring, and no
    # object in the process holds their source text
    report = check_source(get_exercise(EXERCISE), [MEMORY + "\n" + CORRECT], timeout=120, seed=1)
    seen = next(json.loads(n.split("OBSERVED ", 1)[1]) for n in report.notes if "OBSERVED" in n)
    assert seen["refs"] == [
        "bigram_counts",
        "bigram_probs",
        "mean_nll",
    ]  # they are there: the exercises before perplexity (a later one could answer an earlier)
    assert seen["docs"] == [None] * len(seen["refs"]) and seen["getsource"] != "found"
    assert seen["mem"] == "PermissionError" and seen["gc"] == 0, seen
    assert report.passed


def test_a_load_time_note_carries_no_disassembly():
    code = (
        textwrap.dedent(DISASSEMBLY)
        + "\n"
        + "\n".join(f"raise ValueError('statement {i}')" for i in range(20))
    )
    report = check_source(get_exercise(EXERCISE), [code + "\n" + CORRECT], timeout=60, seed=1)
    notes = "\n".join(report.notes)
    for opcode in ("RESUME", "LOAD_", "RETURN_VALUE", "STORE_"):
        assert opcode not in notes, report.notes
    assert "not shown" in report.notes[0]
    assert len(report.notes) == NOTES_SHOWN + 1 and "16 more" in report.notes[-1], report.notes
    assert report.passed
