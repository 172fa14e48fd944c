"""No reference source reaches a student: not in the grading process's memory, not in its notes.

The student's code loads before any reference enters the grading process. The copy that checks an
exercise holds the chapter's earlier references (so that one bug costs one exercise), as code the
trusted parent compiled (no source text, no docstrings); it is not dumpable; and a note or hint
quoting an exception is one short line. A student's code looks for references while it loads
(none), then, from the exercise's copy, for their source and docstrings, reads /proc/self/mem
(closed: the process is not dumpable), searches every object the garbage collector knows for their
source text, and raises a disassembly of them: it finds no source, and no hint carries the
disassembly.
"""

import json

from conftest import IMPLEMENTATIONS

from autograder.judge.exercises import chapter_exercises, get_exercise
from autograder.judge.runner import check_source
from autograder.judge.session import NOTES_SHOWN

CHAPTER, EXERCISE = "01_bigram_counting", "perplexity"
CORRECT = (IMPLEMENTATIONS / EXERCISE / "correct_loop.py").read_text()


NAMES = [e.name for e in chapter_exercises(CHAPTER)]
EARLIER = NAMES[: NAMES.index(EXERCISE)]  # the exercises before perplexity

LOADING = """
import gc, json, sys
frames, frame = [], sys._getframe()
while frame is not None:  # the grading process's own frames, read from student code
    frames += [name for name in frame.f_locals if name in ("references", "job")]
    frame = frame.f_back
seen = {
    "code": sorted(
        o.__name__ for o in gc.get_objects()
        if callable(o) and getattr(getattr(o, "__code__", None), "co_filename", "") == "<reference>"
    ),
    "frames": frames,
}
raise RuntimeError("OBSERVED " + json.dumps(seen))
"""

MEMORY = """
def perplexity(nll):
    import gc, inspect, json
    refs = [globals()[name] for name in EARLIER_NAMES if name in globals()]
    seen = {"refs": sorted(f.__name__ for f in refs), "docs": [f.__doc__ for f in refs]}
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
    wanted = "".join(["def ", "bigram_probs"])  # strings are read from their holders
    seen["gc"] = sum(
        r is not wanted
        and isinstance(r, str | bytes)
        and wanted.encode() in (r.encode(errors="replace") if isinstance(r, str) else r)
        for o in gc.get_objects()
        for r in gc.get_referents(o)
    )
    raise RuntimeError("OBSERVED " + json.dumps(seen))
""".replace("EARLIER_NAMES", repr(EARLIER))

DISASSEMBLY = """
def perplexity(nll):
    import dis
    raise RuntimeError(dis.Bytecode(globals()["bigram_probs"]).dis())
"""


def observed(report) -> dict:
    """What the attack reported seeing, from a note or a check's hint."""
    said = report.loading + report.notes + [result.hint for result in report.results]
    return next(json.loads(n.split("OBSERVED ", 1)[1]) for n in said if "OBSERVED" in n)


def test_no_reference_is_in_the_process_while_the_code_loads():
    # the student's code runs before any reference enters its process: none in any object, and
    # the grading process's frames hold nothing but its own bookkeeping
    report = check_source(get_exercise(EXERCISE), [LOADING + "\n" + CORRECT], seed=1)
    seen = observed(report)
    assert seen["code"] == [], seen
    assert seen["frames"] == [], seen
    assert report.passed


def test_an_exercise_copy_holds_earlier_references_as_code_only():
    # in the copy that checks perplexity the earlier references are bound (one bug costs one
    # exercise), with no source and no docstring, and no object in the process holds their source
    report = check_source(get_exercise(EXERCISE), [MEMORY], seed=1)
    seen = observed(report)
    assert seen["refs"] == EARLIER, seen  # they are there (a later one could answer an earlier)
    assert seen["docs"] == [None] * len(seen["refs"]) and seen["getsource"] != "found"
    assert seen["mem"] == "PermissionError" and seen["gc"] == 0, seen


def test_no_note_or_hint_carries_a_disassembly():
    load = "\n".join(
        ["raise RuntimeError('two\\nlines')"]
        + [f"raise ValueError('statement {i}')" for i in range(20)]
    )
    report = check_source(get_exercise(EXERCISE), [load + "\n" + DISASSEMBLY], seed=1)
    notes = report.loading + report.notes
    said = "\n".join(notes + [result.hint for result in report.results])
    for opcode in ("RESUME", "LOAD_", "RETURN_VALUE", "STORE_"):
        assert opcode not in said, said
    assert "not shown" in notes[0]
    assert "not shown" in said.split("\n", len(notes))[-1], said
    assert len(report.loading) == NOTES_SHOWN + 1 and "16 more" in report.loading[-1], notes
