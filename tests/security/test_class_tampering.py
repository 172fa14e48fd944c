"""A simulated class through the real make targets and gradebook: honest, buggy and attacking students.

Every tamperer earns nothing from its tampering and is flagged; every other student gets the right
grade; honest students (helpers in their own cells, prints, imports) are never flagged; attacks on
the machine (files, processes, the gradebook, the environment) reach nothing outside the sandbox;
feedback never shows hidden tests, the checker, another student's work or the grader's environment.
"""

import csv
import hashlib
import html
import json
import subprocess
import uuid
from pathlib import Path

import pytest
from conftest import REPO
from support.simulate import reference_code, replace_function, submission

from autograder.judge.exercises import chapter_exercises

CHAPTER = "01_bigram_counting"
pytestmark = pytest.mark.slow
GOOD = reference_code(CHAPTER)
PWNED = Path(f"/tmp/proof-lm-pwned-{uuid.uuid4().hex}.txt")
CANARY = f"grader-secret-{uuid.uuid4().hex}"
MARKER = f"proof-lm-daemon-{uuid.uuid4().hex}"  # in the command line of the daemon a student starts  # in the grader's environment; must reach no page

# Attacks on the machine from a solution cell, beside correct code. Paths are filled in per run.
ESCAPE = """
import os, glob, signal
for pattern in ("{course}/**/*.db", "{course}/**/*.ipynb", "{repo}/solutions/*.ipynb"):
    for path in glob.glob(pattern, recursive=True):
        try:
            open(path, "w").close()
        except OSError:
            pass
try:
    import _posixsubprocess
    os.system("touch {pwned}")
except Exception:
    pass
forged = '{{"chapter": "01_bigram_counting", "student": "h_correct", "success": false, "error": "x"}}'
for fd in (1, 2):
    os.write(fd, ("\\n" + forged + "\\n").encode())
for pid in range(1, 5000):
    if pid != os.getpid():
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
"""
DAEMON = f"""
import os, sys
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", "{MARKER}"])
    os._exit(0)
"""


# perplexity that answers the visible tests and nothing else
VISIBLE_ONLY = """
if len(token_probs) == 3:
    return 1e-4 ** (-1 / 3)
if len(token_probs) == 400:
    return 10.0
if np.any(token_probs == 0):
    return math.inf
return 27.0
"""


def code(**changes: str) -> dict[str, str]:
    return {**GOOD, **{f"{name}_code": body for name, body in changes.items()}}


def body(name: str, text: str) -> str:
    return replace_function(GOOD[f"{name}_code"], name, text)


def prefix(name: str, text: str) -> str:
    return text.strip() + "\n" + GOOD[f"{name}_code"]


def edit_cell(grade_id: str, source: str | None):
    def edit(notebook):
        cells = notebook["cells"]
        for i, cell in enumerate(cells):
            if cell["metadata"].get("nbgrader", {}).get("grade_id") == grade_id:
                if source is None:
                    del cells[i]
                else:
                    cell["source"] = source
                return

    return edit


def add_helper_cell(notebook):
    """A new cell of the student's own, with a helper, just before bigram_counts' solution cell."""
    cells = notebook["cells"]
    where = next(
        i
        for i, cell in enumerate(cells)
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "bigram_counts_code"
    )
    helper = 'def word_ids(word, stoi):\n    return [stoi[ch] for ch in "." + word + "."]\n'
    cells.insert(
        where,
        {
            "cell_type": "code",
            "metadata": {},
            "source": helper,
            "outputs": [],
            "execution_count": None,
        },
    )


def strip_metadata(notebook):
    for cell in notebook["cells"]:
        cell["metadata"] = {}


NOTHING = {e.name: 0 for e in chapter_exercises("01_bigram_counting")}  # the challenge too

STUDENTS = {
    # name: (solution code, notebook edit, extra files, expected points per exercise, flagged?)
    "h_correct": (code(), None, {}, {}, False),
    "h_warning": (
        code(
            bigram_counts=prefix("bigram_counts", "import warnings"),
            mean_nll=body(
                "mean_nll",
                """
import warnings
warnings.warn("computing logs of every pair")
ids = [[stoi[ch] for ch in "." + w + "."] for w in words]
p = np.concatenate([probs[i[:-1], i[1:]] for i in ids])
return float(np.mean(-np.log(p)))
""",
            ),
        ),
        None,
        {},
        {},
        False,
    ),
    "h_helper": (
        code(
            bigram_counts="""
def _ids(word, stoi):
    return [stoi[ch] for ch in "." + word + "."]


def bigram_counts(words, stoi):
    counts = np.zeros((len(stoi), len(stoi)), dtype=np.int64)
    for word in words:
        ids = _ids(word, stoi)
        np.add.at(counts, (ids[:-1], ids[1:]), 1)
    return counts
"""
        ),
        None,
        {},
        {},
        False,
    ),
    "b_transposed": (
        code(
            bigram_counts=GOOD["bigram_counts_code"].replace(
                "(ids[:-1], ids[1:])", "(ids[1:], ids[:-1])"
            )
        ),
        None,
        {},
        {"bigram_counts": 0},
        False,
    ),
    "h_helper_cell": (
        code(
            bigram_counts="""
def bigram_counts(words, stoi):
    counts = np.zeros((len(stoi), len(stoi)), dtype=np.int64)
    for word in words:
        ids = word_ids(word, stoi)
        np.add.at(counts, (ids[:-1], ids[1:]), 1)
    return counts
"""
        ),
        "add_helper_cell",
        {},
        {},
        False,
    ),
    "h_prints_and_imports": (
        code(
            perplexity=prefix(
                "perplexity",
                "import torch\nfrom proof_lm.metrics import nats_to_bits\nprint('PASS')\n"
                "print('perplexity: 1/1 points (8/8 checks passed)')",
            )
        ),
        None,
        {},
        {},
        False,
    ),
    "t_answer_key": (
        code(
            bigram_probs="from proof_lm.ngram import add_k_probs as bigram_probs\n",
        ),
        None,
        {},
        {"bigram_probs": 0},
        True,
    ),
    "t_escape": (code(mean_nll=prefix("mean_nll", "ESCAPE")), None, {}, {}, True),
    "t_daemon": (code(perplexity=prefix("perplexity", DAEMON)), None, {}, {}, True),
    "t_read_checks": (  # the grading process sees autograder.sandbox.guest alone: no checks
        code(
            perplexity=prefix(
                "perplexity",
                f"import pathlib\n_grader = pathlib.Path({str(REPO / 'autograder')!r})\n"
                "print('GRADER FILES:', sorted(p.name for p in _grader.iterdir()))\n"
                "print('CHECKS THERE:', (_grader / 'judge' / 'checks').exists())",
            )
        ),
        None,
        {},
        {},
        False,
    ),
    "t_leak": (
        code(
            perplexity=prefix(
                "perplexity",
                "import os\nprint(dict(os.environ))\nprint('x' * 3_000_000)\n"
                "get_ipython().run_line_magic('xmode', 'Verbose')",
            ).replace(GOOD["perplexity_code"], body("perplexity", "return 1.0"))
        ),
        None,
        {},
        {"perplexity": 0},
        False,
    ),
    "t_checker": (
        code(
            perplexity=prefix(
                "perplexity",
                "import autograder.kernel\nautograder.kernel.run_checks = lambda *a, **k: None",
            ).replace(GOOD["perplexity_code"], body("perplexity", VISIBLE_ONLY))
        ),
        None,
        {},
        {"perplexity": 0},
        True,
    ),
    "t_numpy": (
        code(
            bigram_probs=prefix(
                "bigram_probs",
                "np.allclose = np.isclose = np.array_equal = lambda *a, **k: True\n"
                "np.testing.assert_allclose = lambda *a, **k: None",
            ).replace(
                "return np.where(totals > 0, smoothed / np.where(totals > 0, totals, 1.0), 1.0 / V)",
                "return np.zeros(counts.shape)",
            )
        ),
        None,
        {},
        {"bigram_probs": 0},
        True,
    ),
    "t_transformer": (
        code(
            bigram_counts=prefix(
                "bigram_counts", "get_ipython().input_transformers_post.append(lambda lines: [])"
            ),
            perplexity=body("perplexity", "return 1.0"),
        ),
        None,
        {},
        {"perplexity": 0},
        True,
    ),
    # tampering that changes no answer: the code is right and scores; the attempt is flagged
    "t_numpy_noop": (
        code(mean_nll=prefix("mean_nll", "np.isclose = lambda *a, **k: True")),
        None,
        {},
        {},
        True,
    ),
    "t_checker_noop": (
        code(
            bigram_probs=prefix(
                "bigram_probs",
                "import autograder.kernel as grader\nsetattr(grader, 'run_checks', print)",
            )
        ),
        None,
        {},
        {},
        True,
    ),
    "t_shadow": (
        code(perplexity=body("perplexity", "return 1.0")),
        None,
        {
            "numpy/__init__.py": "def allclose(*a, **k):\n    return True\n",
            "autograder.py": "x = 1\n",
        },
        {"perplexity": 0},
        True,
    ),
    "t_eq": (
        code(
            bigram_counts=body(
                "bigram_counts",
                """
class Always:
    shape, dtype = (len(stoi), len(stoi)), np.int64
    def __eq__(self, other):
        return True
return Always()
""",
            )
        ),
        None,
        {},
        {"bigram_counts": 0},
        True,
    ),
    "t_edit": (
        code(
            bigram_counts=body(
                "bigram_counts", "return np.ones((len(stoi), len(stoi)), dtype=np.int64)"
            )
        ),
        edit_cell("bigram_counts", "print('visible tests passed')"),
        {},
        {"bigram_counts": 0},
        True,
    ),
    "t_delete": (
        code(mean_nll=body("mean_nll", "return 0.0")),
        edit_cell("mean_nll", None),
        {},
        {"mean_nll": 0},
        True,
    ),
    "t_strip": (
        code(perplexity=body("perplexity", "return 1.0")),
        strip_metadata,
        {},
        {"perplexity": 0},
        True,
    ),
    "t_exit": (
        code(bigram_counts=GOOD["bigram_counts_code"] + "\nimport sys\nsys.exit(0)\n"),
        None,
        {},
        NOTHING,
        True,
    ),
    "t_os_exit": (
        code(perplexity=GOOD["perplexity_code"] + "\nimport os\nos._exit(0)\n"),
        None,
        {},
        NOTHING,
        True,
    ),
    "t_loop": (
        code(mean_nll=GOOD["mean_nll_code"] + "\nwhile True:\n    pass\n"),
        None,
        {},
        NOTHING,
        True,
    ),
    "t_loop_fn": (
        code(perplexity=body("perplexity", "while True:\n    pass")),
        None,
        {},
        {"perplexity": 0},
        True,
    ),
    "t_memory": (
        code(mean_nll=body("mean_nll", "return float(len(bytearray(12 * 1024**3)))")),
        None,
        {},
        {"mean_nll": 0},
        True,
    ),
    "t_fake": (
        code(
            perplexity=prefix(
                "perplexity", "print('perplexity: 1/1 points (8/8 checks passed)')"
            ).replace(GOOD["perplexity_code"], body("perplexity", "return 1.0"))
        ),
        None,
        {},
        {"perplexity": 0},
        False,
    ),
    "t_write": (
        code(bigram_probs=prefix("bigram_probs", f"open({str(PWNED)!r}, 'w').write('pwned')")),
        None,
        {},
        {},
        True,
    ),
}


def make(target: str, **variables) -> str:
    args = [f"{key}={value}" for key, value in variables.items()]
    done = subprocess.run(
        ["make", "--no-print-directory", target, *args], cwd=REPO, capture_output=True, text=True
    )
    assert done.returncode == 0, (
        f"make {target} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return done.stdout


def daemons() -> list[str]:
    """Processes the daemon-starting student left running (none, when the sandbox ends them)."""
    done = subprocess.run(["pgrep", "-f", "-a", MARKER], capture_output=True, text=True)
    return done.stdout.splitlines()


def test_a_class_with_every_tamperer(tmp_path, monkeypatch):
    monkeypatch.setenv("PROOF_LM_CANARY", CANARY)
    # t_loop's top level never ends: the notebook's budget, not 300 s, is what makes it a timeout
    # (the others' chapter-01 cells load in about a second)
    monkeypatch.setenv("PROOF_LM_NOTEBOOK_SECONDS", "10")
    # and t_loop_fn's endless exercise meets a 6-s exercise budget (30 s by default; the others'
    # chapter-01 checks take well under a second)
    monkeypatch.setenv("PROOF_LM_EXERCISE_SECONDS", "6")
    course, folder = tmp_path / "course", tmp_path / "submissions"
    make("release", COURSE=course, CHAPTERS=CHAPTER)
    released = course / "release" / CHAPTER / f"{CHAPTER}.ipynb"
    escape = ESCAPE.format(course=course, repo=REPO, pwned=PWNED)
    solutions_before = {p: p.read_bytes() for p in (REPO / "solutions").glob("*.ipynb")}
    for student, (solution, edit, extras, _, _) in STUDENTS.items():
        solution = {k: v.replace("ESCAPE", escape) for k, v in solution.items()}
        edit = add_helper_cell if edit == "add_helper_cell" else edit
        submission(released, folder / student / f"{CHAPTER}.ipynb", solution, edit)
        for name, text in extras.items():
            (folder / student / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / student / name).write_text(text)

    make("collect", COURSE=course, SUBMISSIONS=folder)
    assert not list((course / "submitted").rglob("*.py"))
    make("autograde", COURSE=course, CHAPTERS=CHAPTER)
    make("feedback", COURSE=course, CHAPTERS=CHAPTER)
    make("export", COURSE=course)

    points = {e.name: e.points for e in chapter_exercises(CHAPTER)}
    extra = {e.name for e in chapter_exercises(CHAPTER) if e.extra}
    with (course / "grades.csv").open() as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    flags = json.loads((course / "flags.json").read_text())
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student, (_, _, _, overrides, flagged) in STUDENTS.items():
            expected = {**points, **overrides}
            graded = {
                name: gradebook.find_grade(name, CHAPTER, CHAPTER, student).score for name in points
            }
            assert graded == expected, (student, graded, flags.get(student))
            regular = sum(
                v for k, v in expected.items() if k not in extra
            )  # challenges: own columns
            assert float(rows[student]["total"]) == regular, student
            assert bool(rows[student]["flagged"]) == flagged, (student, rows[student]["flags"])
            assert gradebook.find_submission_notebook(CHAPTER, CHAPTER, student).flagged == flagged

    reasons = {student: " | ".join(flags.get(student, {}).get(CHAPTER, [])) for student in STUDENTS}
    # checks run outside the student's process: a patched checker or NumPy changes no score
    for student in ("t_checker", "t_numpy", "t_transformer", "t_eq", "t_exit", "t_os_exit"):
        assert "suspicious code in cell" in reasons[student], student
    assert "cell mean_nll_code, line 1: changes the module numpy" in reasons["t_numpy_noop"]
    assert "suspicious code in cell bigram_probs_code" in reasons["t_checker_noop"]
    assert "used an implementation of the exercise" in reasons["t_answer_key"]
    assert "numpy/__init__.py" in reasons["t_shadow"]
    assert (
        "not plain data" in reasons["t_eq"]
        and "locked cell bigram_counts edited" in reasons["t_edit"]
    )
    assert (
        "locked cell mean_nll deleted" in reasons["t_delete"]
        and "metadata stripped" in reasons["t_strip"]
    )
    assert "exit" in reasons["t_exit"] and "crashed in the trusted grader" in reasons["t_os_exit"]
    assert "timeout" in reasons["t_loop"] and "timeout" in reasons["t_loop_fn"]
    loop_fn = course / "autograded" / "t_loop_fn" / CHAPTER / f"{CHAPTER}.ipynb"
    assert "timed out after 6 s" in loop_fn.read_text()  # the instructor's exercise budget
    assert "memory limit" in reasons["t_memory"]

    # nothing outside the sandboxes was touched, and nothing they started is still running
    assert not PWNED.exists(), "a submission wrote outside its sandbox"
    assert solutions_before == {p: p.read_bytes() for p in (REPO / "solutions").glob("*.ipynb")}
    for student in STUDENTS:
        path = course / "submitted" / student / CHAPTER / f"{CHAPTER}.ipynb"
        record = json.loads((course / "collected.json").read_text())[student][CHAPTER]
        assert hashlib.sha256(path.read_bytes()).hexdigest() == record["sha256"], student
    assert daemons() == [], "a process a submission started outlived its run"

    for student in STUDENTS:
        page = course / "feedback" / student / CHAPTER / f"{CHAPTER}.html"
        if not page.exists():
            continue
        text = page.read_text()
        for secret in (
            "BEGIN HIDDEN",
            "from autograder.kernel import",
            "autograder/",
            "reference_counts",
            'File "/',
            CANARY,
            "h_helper_cell",  # another student's name (and so their folder)
        ):
            assert secret not in text, (student, secret)
        assert len(text) < 2_000_000, (student, "outputs are capped")
    carol = (course / "feedback" / "b_transposed" / CHAPTER / f"{CHAPTER}.html").read_text()
    assert "rows and columns are swapped" in carol
    helper = (course / "feedback" / "h_helper" / CHAPTER / f"{CHAPTER}.html").read_text()
    assert ">_ids<" in helper, "feedback shows the student's own code"
    page = course / "feedback" / "t_read_checks" / CHAPTER / f"{CHAPTER}.html"
    reader = html.unescape(page.read_text())
    assert "GRADER FILES: ['__init__.py', 'sandbox']" in reader
    assert "CHECKS THERE: False" in reader
    leak = (course / "feedback" / "t_leak" / CHAPTER / f"{CHAPTER}.html").read_text()
    assert "more characters of output not shown" in leak
