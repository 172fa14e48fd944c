"""The trusted grading path: tampering, crashes, endless loops and memory hogs earn nothing and are flagged.

Everything runs in the OS sandbox, as grading does; tests/security/test_sandbox_attacks.py attacks the sandbox itself.
"""

import json
import shutil
import textwrap

import pytest
from conftest import IMPLEMENTATIONS, REPO

from autograder.judge.exercises import get_exercise
from autograder.judge.runner import check_source, grade_notebook

CORRECT = (IMPLEMENTATIONS / "perplexity" / "correct_loop.py").read_text()
WRONG = "def perplexity(token_probs):\n    return 1.0\n"


def grade(source: str, timeout: float = 20.0):
    return check_source(
        get_exercise("perplexity"),
        [textwrap.dedent(source)],
        timeout=timeout,
    )


def test_correct_code_passes_as_a_baseline():
    assert grade(CORRECT).passed


@pytest.mark.parametrize(
    "tamper",
    [
        # an object whose __eq__ always says True (nbgrader issue #1379)
        """
        class Always:
            def __eq__(self, other): return True
            def __float__(self): return 1.0
        def perplexity(token_probs): return Always()
        """,
        # an ndarray subclass that lies about equality
        """
        import numpy as np
        class Liar(np.ndarray):
            def __eq__(self, other): return True
        def perplexity(token_probs): return np.zeros(()).view(Liar)
        """,
        # patch NumPy's comparisons and testing helpers, then answer wrongly
        """
        import numpy as np
        np.allclose = np.isclose = np.array_equal = lambda *a, **k: True
        np.testing.assert_allclose = lambda *a, **k: None
        def perplexity(token_probs): return 1.0
        """,
        # replace the checker's functions from the solution cell
        """
        import autograder.judge.check, autograder.judge.expect, autograder.judge.runner
        autograder.judge.expect.expect_close = lambda *a, **k: None
        autograder.judge.runner.judge = lambda checks, outcomes: []
        autograder.judge.check.CheckFailed = type("Nope", (Exception,), {})
        def perplexity(token_probs): return 1.0
        """,
        # print something that looks like a passing report
        """
        print("perplexity: 1/1 points (9/9 checks passed)")
        def perplexity(token_probs): return 1.0
        """,
        # try to blank later code with an IPython input transformer
        """
        get_ipython().input_transformers_post.append(lambda lines: [])
        def perplexity(token_probs): return 1.0
        """,
        # exit before the checks run
        """
        def perplexity(token_probs): return 1.0
        import sys; sys.exit(0)
        """,
        # raise SystemExit from inside the function
        """
        def perplexity(token_probs):
            raise SystemExit(0)
        """,
    ],
    ids=[
        "eq-always-true",
        "ndarray-subclass",
        "patch-numpy",
        "patch-checker",
        "fake-report",
        "input-transformer",
        "sys-exit",
        "exit-in-function",
    ],
)
def test_tampering_earns_nothing(tamper):
    report = grade(tamper)
    assert report.earned == 0 and not report.passed


def test_os_exit_is_flagged_not_silent():
    report = grade("import os\nos._exit(0)\n")
    assert report.earned == 0 and report.flags == ["crashed"]
    assert "exit code 0" in report.notes[0]


def test_forged_result_file_is_rejected():
    forged = """
    import sys, os
    from autograder.sandbox.guest.plain import pack
    from autograder.sandbox.guest.protocol import FRAME
    forged = pack({"found": True, "problems": [], "outcomes": []})  # answers for no call at all
    os.write(int(sys.argv[2]), FRAME.pack(b"A", len(forged)) + forged)
    os._exit(0)
    """
    report = grade(forged)
    assert report.earned == 0 and report.flags == ["malformed answers"]


def test_endless_loop_times_out_and_is_flagged():
    report = grade("def perplexity(token_probs):\n    while True:\n        pass\n", timeout=3)
    assert report.earned == 0 and report.flags == ["timeout"]
    assert "timed out" in report.notes[0]


def test_memory_hog_is_stopped_by_the_limit():
    hog = "def perplexity(token_probs):\n    return float(len(bytearray(8 * 1024**3)))\n"
    report = grade(hog)
    assert report.earned == 0
    assert any("MemoryError" in r.hint for r in report.results)


def test_memory_hog_at_load_is_flagged():
    report = grade("blob = bytearray(8 * 1024**3)\n" + CORRECT)
    assert report.earned == 1, "a failed top-level statement does not hide the function"
    assert any("MemoryError" in note for note in report.loading)


def test_files_beside_the_notebook_are_never_imported(tmp_path):
    solution = REPO / "solutions" / "01_bigram_counting.ipynb"
    shutil.copy(solution, tmp_path / "01_bigram_counting.ipynb")
    (tmp_path / "numpy").mkdir()
    (tmp_path / "numpy" / "__init__.py").write_text(
        "raise SystemExit('shadowed numpy was imported')\n"
    )
    (tmp_path / "autograder.py").write_text(
        "raise SystemExit('shadowed autograder was imported')\n"
    )
    reports = grade_notebook(tmp_path / "01_bigram_counting.ipynb")
    failed = [
        (r.exercise, r.flags, r.notes, [c.hint for c in r.results if not c.passed])
        for r in reports
        if not r.passed
    ]
    assert not failed, failed


def test_stripped_metadata_still_finds_the_solution(tmp_path):
    notebook = json.loads((REPO / "solutions" / "01_bigram_counting.ipynb").read_text())
    for cell in notebook["cells"]:
        cell["metadata"] = {}
    path = tmp_path / "01_bigram_counting.ipynb"
    path.write_text(json.dumps(notebook))
    reports = grade_notebook(path)
    assert sum(report.earned for report in reports if not report.extra) == 7
    assert sum(report.earned for report in reports if report.extra) == 2  # the challenge too


@pytest.mark.parametrize(
    "source, flag",
    [
        (
            "class A:\n    def __eq__(self, o): return True\ndef perplexity(p): return A()\n",
            "returned an object that is not plain data",
        ),
        (WRONG + "import sys\nsys.exit(0)\n", "tried to exit the interpreter"),
        ("def perplexity(p):\n    return len(bytearray(8 * 1024**3))\n", "memory limit"),
    ],
    ids=["eq-object", "sys-exit", "memory"],
)
def test_tampering_is_flagged(source, flag):
    report = grade(source)
    assert report.earned == 0 and flag in report.flags


HUGE_MESSAGE = (
    "class Huge(Exception):\n"
    "    def __str__(self):\n"
    "        return 'x' * (8 * 1024**3)\n"
    "raise Huge()\n"
)


@pytest.mark.parametrize(
    "source, flags",
    [
        # the words are in the message; the class is an ordinary ValueError: no flag
        (WRONG + "raise ValueError('not a SystemExit, nor a MemoryError')\n", []),
        (
            "def perplexity(p):\n    raise RuntimeError('KeyboardInterrupt MemoryError AnswerKeyError')\n",
            [],
        ),
        # printing "MemoryError" before dying is a crash: the exit status says so, not the text
        (
            "import os, sys\nsys.stderr.write('MemoryError\\n')\nsys.stderr.flush()\nos._exit(1)\n",
            ["crashed"],
        ),
        # a class that stops the interpreter, whatever its name
        (
            WRONG + "class Stop(BaseException):\n    pass\nraise Stop()\n",
            ["tried to exit the interpreter"],
        ),
        # memory that runs out where the grading process cannot report it: told by the exit status
        (HUGE_MESSAGE + CORRECT, ["memory limit"]),
    ],
    ids=[
        "words-at-load",
        "words-in-call",
        "prints-memoryerror-then-dies",
        "own-baseexception",
        "memory-in-a-message",
    ],
)
def test_flags_come_from_what_was_raised_not_from_its_text(source, flags):
    report = grade(source)
    assert report.flags == flags, (report.flags, report.notes)


@pytest.mark.parametrize(
    "extra",
    [
        "import warnings\nprint('debugging: 3 values')\nwarnings.warn('slow')\n",
        "print('PASS')\nprint('perplexity: 1/1 points (8/8 checks passed)')\n",
        "import torch\nimport matplotlib.pyplot as plt\nfrom proof_lm.metrics import nats_to_bits\n",
        "open('scratch.txt', 'w').write('notes')\n",
    ],
    ids=["prints-and-warns", "prints-pass", "imports-torch", "writes-its-own-scratch-file"],
)
def test_honest_code_is_not_flagged(extra):
    report = grade(extra + CORRECT)
    assert report.passed and report.flags == [], (report.flags, report.notes)
