"""A simulated class through the real make targets and gradebook: honest, buggy and tampering students.

Every tamperer earns nothing on what it tampered with and is flagged; every other student gets the
right grade; honest students are never flagged; feedback never shows hidden tests or the checker.
"""

import csv
import json
import subprocess
import uuid
from pathlib import Path

import pytest
from conftest import REPO

from autograder.exercises import chapter_exercises
from autograder.simulate import reference_code, replace_function, submission

CHAPTER = "01_bigram_counting"
pytestmark = pytest.mark.slow
GOOD = reference_code(CHAPTER)
PWNED = Path(f"/tmp/proof-lm-pwned-{uuid.uuid4().hex}.txt")

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


def strip_metadata(notebook):
    for cell in notebook["cells"]:
        cell["metadata"] = {}


NOTHING = {name: 0 for name in ("bigram_counts", "bigram_probs", "mean_nll", "perplexity")}

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
        {"bigram_counts": 0, "perplexity": 0},
        True,
    ),
    # tampering that changes no answer: the code is right, the attempt still costs its exercise
    "t_numpy_noop": (
        code(mean_nll=prefix("mean_nll", "np.isclose = lambda *a, **k: True")),
        None,
        {},
        {"mean_nll": 0},
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
        {"bigram_probs": 0},
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
        NOTHING,
        True,
    ),
    "t_write": (
        code(bigram_probs=prefix("bigram_probs", f"open({str(PWNED)!r}, 'w').write('pwned')")),
        None,
        {},
        NOTHING,
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


def test_a_class_with_every_tamperer(tmp_path):
    course, folder = tmp_path / "course", tmp_path / "submissions"
    make("release", COURSE=course, CHAPTERS=CHAPTER)
    with (course / "nbgrader_config.py").open("a") as config:
        config.write("c.Execute.timeout = 5\n")
    released = course / "release" / CHAPTER / f"{CHAPTER}.ipynb"
    for student, (solution, edit, extras, _, _) in STUDENTS.items():
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
            assert float(rows[student]["total"]) == sum(expected.values()), student
            assert bool(rows[student]["flagged"]) == flagged, (student, rows[student]["flags"])
            assert gradebook.find_submission_notebook(CHAPTER, CHAPTER, student).flagged == flagged

    reasons = {student: " | ".join(flags.get(student, {}).get(CHAPTER, [])) for student in STUDENTS}
    assert (
        "the trusted score stands" in reasons["t_checker"]
        and "the trusted score stands" in reasons["t_numpy"]
    )
    for student in ("t_checker", "t_numpy", "t_transformer", "t_eq", "t_exit", "t_os_exit"):
        assert "tampering code in cell" in reasons[student], student
    assert "cell mean_nll_code, line 1: changes the module numpy" in reasons["t_numpy_noop"]
    assert "bigram_probs: its solution cell tampers, so it earns 0" in reasons["t_checker_noop"]
    assert "numpy/__init__.py" in reasons["t_shadow"]
    assert (
        "not plain data" in reasons["t_eq"]
        and "locked cell bigram_counts edited" in reasons["t_edit"]
    )
    assert (
        "locked cell mean_nll deleted" in reasons["t_delete"]
        and "metadata stripped" in reasons["t_strip"]
    )
    assert "exit" in reasons["t_exit"] and "nbgrader could not grade" in reasons["t_os_exit"]
    assert "timeout" in reasons["t_loop"] and "timeout" in reasons["t_loop_fn"]
    assert "memory limit" in reasons["t_memory"] and "grading report" in reasons["t_fake"]
    assert "write a file" in reasons["t_write"]

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
        ):
            assert secret not in text, (student, secret)
    carol = (course / "feedback" / "b_transposed" / CHAPTER / f"{CHAPTER}.html").read_text()
    assert "rows and columns are swapped" in carol
    helper = (course / "feedback" / "h_helper" / CHAPTER / f"{CHAPTER}.html").read_text()
    assert ">_ids<" in helper, "feedback shows the student's own code"
    PWNED.unlink(missing_ok=True)
