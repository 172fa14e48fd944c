"""No reference source reaches a student: not in the grading process's memory, not in its notes.

The grading process holds the chapter's other references (so that one bug costs one exercise), as
code the trusted parent compiled (no source text, no docstrings); it is not dumpable; and a note
quoting an exception is one short line. A student's code walks the garbage collector for the
reference functions, reads its own memory through /proc/self/mem (after making itself dumpable
again) looking for the references' source lines and docstrings, and raises a disassembly of them
at load time: it finds no source, and its note carries no disassembly.
"""

import json
import textwrap
from pathlib import Path

from conftest import IMPLEMENTATIONS, REPO

from autograder.exercises import get_exercise
from autograder.references import reference_solutions
from autograder.runner import NOTES_SHOWN, check_source

CHAPTER, EXERCISE = "01_bigram_counting", "perplexity"
CORRECT = (IMPLEMENTATIONS / EXERCISE / "correct_loop.py").read_text()


def _needles() -> list[str]:
    """Lines of the other references' source (docstrings too) found nowhere else the process reads."""
    elsewhere = CORRECT + get_exercise(EXERCISE).preamble
    for folder in (REPO / "proof_lm", REPO / "autograder"):
        elsewhere += "".join(path.read_text() for path in Path(folder).glob("*.py"))
    needles = []
    for name, source in reference_solutions(CHAPTER).items():
        if name == EXERCISE:
            continue
        for line in source.splitlines():
            line = line.strip().strip('"')
            if len(line) >= 24 and line not in elsewhere:
                needles.append(line)
    return needles


MEMORY = """
import ctypes, gc, json, os
seen = {}
try:
    open("/proc/self/mem", "rb").close()
    seen["mem"] = "opened"
except OSError as error:
    seen["mem"] = type(error).__name__
refs = [o for o in gc.get_objects()
        if type(o).__name__ == "function" and o.__code__.co_filename == "<reference>"]
seen["refs"] = sorted(f.__name__ for f in refs)
seen["docs"] = [f.__doc__ for f in refs]
import inspect
try:
    inspect.getsource(refs[0])
    seen["getsource"] = "found"
except (OSError, TypeError, IndexError) as error:
    seen["getsource"] = type(error).__name__
ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)  # dumpable again: its own memory, all of it
needles = [bytes.fromhex(h) for h in NEEDLES]
buf = bytearray(1 << 20)
mine = [(ctypes.addressof((ctypes.c_char * len(buf)).from_buffer(buf)), len(buf))]
mine += [(ctypes.cast(ctypes.c_char_p(n), ctypes.c_void_p).value, len(n)) for n in needles]
found, scanned = set(), 0
with open("/proc/self/mem", "rb", buffering=0) as mem:
    for region in open("/proc/self/maps").read().splitlines():
        span, perms = region.split()[:2]
        start, end = (int(x, 16) for x in span.split("-"))
        if "r" not in perms or end - start > 1 << 30:
            continue
        at = start
        while at < end:
            try:
                got = os.preadv(mem.fileno(), [buf], at)
            except OSError:
                break
            if got <= 0:
                break
            scanned += got
            for i, needle in enumerate(needles):
                pos = buf.find(needle, 0, got)
                while pos != -1:
                    where = at + pos
                    if not any(a <= where < a + n for a, n in mine):
                        found.add(i)
                    pos = buf.find(needle, pos + 1, got)
            at += max(1, got - 256)  # overlapping: a line across two reads is found too
seen["found"] = sorted(found)
seen["scanned"] = scanned
raise RuntimeError("OBSERVED " + json.dumps(seen))
"""

DISASSEMBLY = """
import dis, gc
refs = [o for o in gc.get_objects()
        if type(o).__name__ == "function" and o.__code__.co_filename == "<reference>"]
text = dis.Bytecode(refs[0]).dis()
raise RuntimeError(text)
"""


def test_the_grading_process_holds_no_reference_source():
    needles = _needles()
    assert len(needles) >= 5, needles
    attack = MEMORY.replace("NEEDLES", repr([n.encode().hex() for n in needles]))
    report = check_source(get_exercise(EXERCISE), [attack + "\n" + CORRECT], timeout=120, seed=1)
    seen = next(json.loads(n.split("OBSERVED ", 1)[1]) for n in report.notes if "OBSERVED" in n)
    assert seen["refs"] == [
        "bigram_counts",
        "bigram_probs",
        "interpolated_probs",
        "mean_nll",
    ]  # they are there
    assert seen["mem"] == "PermissionError", "the grading process is dumpable"
    assert seen["docs"] == [None] * len(seen["refs"]) and seen["getsource"] != "found"
    assert seen["scanned"] > 10 * 1024**2, seen["scanned"]  # it read its memory
    assert seen["found"] == [], [needles[i] for i in seen["found"]]
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
