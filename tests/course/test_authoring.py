"""docs/authoring.md followed on a copy of the repository: an exercise added in its three places (its
check module, its source notebook, its catalogue folder) is graded by the instructor's command
line, a right answer earning its point and a wrong one not, and by the server's grading function,
whose page names the wrong one's planted bug."""

import json
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import PYTHON, REPO

CHAPTER, NAME = "01_bigram_counting", "distinct_bigrams"
GUIDE = (REPO / "docs" / "authoring.md").read_text()
DECLARATION, HIDDEN = re.findall(r"```python\n(.*?)```", GUIDE, re.S)[:2]

CHECKS = f'''"""Hidden checks for chapter 01's `{NAME}`: the visible example, repeated pairs, random names."""

from autograder.judge.check import Check, CheckFailed
from autograder.judge.declaration import Exercise
from autograder.judge.expect import value_of
from autograder.sandbox.guest.protocol import Call, Outcome

{DECLARATION}

def _pairs(words: list[str], boundary: bool) -> int:
    padded = [f".{{w}}." if boundary else w for w in words]
    return len({{pair for w in padded for pair in zip(w, w[1:], strict=False)}})


def _case(words: list[str], what: str) -> Check:
    def judge(outcomes: list[Outcome]) -> None:
        (outcome,) = outcomes
        answer = value_of(outcome)
        if answer == _pairs(words, False) != _pairs(words, True):
            raise CheckFailed("the pairs with the boundary were not counted: where does a name start?")
        if answer != _pairs(words, True):
            raise CheckFailed(f"got {{answer!r}} distinct bigrams")

    return Check(what, [Call((words,))], judge)


def {NAME}_checks(rng) -> list[Check]:
    names = ["".join(rng.choice(list("abc"), size=int(rng.integers(1, 5)))) for _ in range(9)]
    return [_case(["ab"], "the visible example"), _case(names, "nine random names")]
'''
CATALOGUE = {  # file: (its EXPECT, its body); a student hands in each
    "correct_set.py": (
        "pass",
        "return len({p for w in words for p in zip('.' + w, w + '.', strict=True)})",
    ),
    "wrong_no_boundary.py": (
        "boundary",
        "return len({p for w in words for p in zip(w, w[1:], strict=False)})",
    ),
}


def _cell(grade_id: str, source: str, solution: bool, points: int | None = None) -> dict:
    meta = {"grade": points is not None, "grade_id": grade_id, "locked": not solution}
    meta |= {"schema_version": 3, "solution": solution} | ({"points": points} if points else {})
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": grade_id.replace("_", "-"),
        "metadata": {"nbgrader": meta},
        "outputs": [],
        "source": source,
    }


def _add_exercise(root: Path) -> None:
    """The guide's three places, on the copy at `root`."""
    (root / "autograder/judge/checks" / f"{NAME}.py").write_text(CHECKS)
    notebook_path = root / "solutions" / f"{CHAPTER}.ipynb"
    notebook = json.loads(notebook_path.read_text())
    stub = f"def {NAME}(words):\n    ### BEGIN SOLUTION\n    return 0\n    ### END SOLUTION\n"
    test = f"{HIDDEN}assert {NAME}(['ab']) == 3\n"
    notebook["cells"] += [_cell(f"{NAME}_code", stub, True), _cell(NAME, test, False, 1)]
    notebook_path.write_text(json.dumps(notebook))
    catalogue = root / "tests" / "implementations" / NAME
    catalogue.mkdir(parents=True)
    for file, (expect, body) in CATALOGUE.items():
        text = f'EXPECT = "{expect}"\n\n\ndef {NAME}(words):\n    {body}\n'
        (catalogue / file).write_text(text)


def _run(root: Path, *args: str) -> str:
    done = subprocess.run([PYTHON, *args], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


SERVER = """
import json, sys
from pathlib import Path
from autograder.course.autograde import release_data
from autograder.course.task import Job
from autograder.server.grading import grade_with_feedback
release = release_data(Path("course"), [sys.argv[1]])
for path in sys.argv[2:]:
    done = grade_with_feedback(Job(sys.argv[1], Path(path).parent.name, Path(path).read_bytes()), release, 5, False)
    print(json.dumps({"rows": done.exercises, "page": done.feedback}))
"""


@pytest.fixture
def copy_root() -> Iterator[Path]:
    """A folder for the copy outside /tmp: the sandbox mounts the repository's folders where they
    are, and its own /tmp would cover them."""
    folder = Path(tempfile.mkdtemp(prefix="proof-lm-authoring-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_an_exercise_added_as_the_guide_says_is_graded_by_the_course_and_the_server(copy_root):
    root = copy_root / "repository"
    for folder in ("autograder", "proof_lm", "data", "solutions"):
        shutil.copytree(REPO / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    _add_exercise(root)
    listed = json.loads(_run(root, "-m", "autograder", "list", "--json"))
    assert {"exercise": NAME, "chapter": CHAPTER, "points": 1} in [
        {k: row[k] for k in ("exercise", "chapter", "points")} for row in listed
    ]
    _run(root, "-m", "autograder.cli.instructor", "release", "--root", "course", CHAPTER)
    released = json.loads((root / "course/release" / CHAPTER / f"{CHAPTER}.ipynb").read_text())
    for file in CATALOGUE:  # a student per catalogued implementation, the rest left as stubs
        for cell in released["cells"]:
            if cell["metadata"].get("nbgrader", {}).get("grade_id") == f"{NAME}_code":
                cell["source"] = (root / "tests/implementations" / NAME / file).read_text()
        folder = root / "submissions" / file.partition("_")[0]  # the students correct and wrong
        folder.mkdir(parents=True)
        (folder / f"{CHAPTER}.ipynb").write_text(json.dumps(released))
    instructor = ("-m", "autograder.cli.instructor")
    _run(root, *instructor, "collect", "--root", "course", "submissions")
    # without the OS sandbox: this environment installs the project from the original folders,
    # which a sandbox of the copy does not mount (tests/security proves the sandbox itself)
    grading = ("--workers", "1", "--seed", "5", "--no-sandbox")
    _run(root, *instructor, "autograde", "--root", "course", *grading)
    earned = {}  # the trusted reports autograde kept, by student
    for student in ("correct", "wrong"):
        kept = json.loads((root / "course/verdicts" / student / f"{CHAPTER}.json").read_text())
        earned[student] = {report["exercise"]: report["earned"] for report in kept["reports"]}
    assert earned["correct"][NAME] == 1 and earned["wrong"][NAME] == 0, earned
    # the stubs of the chapter's other exercises earn nothing
    assert not any(v for student in earned.values() for k, v in student.items() if k != NAME)

    # the server's grading function on the wrong one: 0 points, its page names the planted bug
    wrong = root / "submissions" / "wrong" / f"{CHAPTER}.ipynb"
    (served,) = [
        json.loads(line) for line in _run(root, "-c", SERVER, CHAPTER, str(wrong)).splitlines()
    ]
    assert {row["exercise"]: row["earned"] for row in served["rows"]}[NAME] == 0
    assert "the pairs with the boundary were not counted" in served["page"]
