"""The autograder judged by known implementations: references pass, stubs fail, every catalogued bug fails."""

import ast
import zlib
from pathlib import Path

import pytest
from conftest import IMPLEMENTATIONS, REPO

from autograder.exercises import EXERCISES, chapter_exercises, get_exercise
from autograder.runner import check_source, grade_notebook

CATALOGUE = sorted(IMPLEMENTATIONS.glob("*/*.py"))


def expectation(path: Path) -> str:
    """The file's EXPECT constant: "pass", or a phrase the failing hint must contain."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and node.targets[0].id == "EXPECT":
            return node.value.value
    raise AssertionError(f"{path} has no EXPECT")


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_every_exercise_has_a_catalogue(name):
    files = list((IMPLEMENTATIONS / name).glob("*.py"))
    correct = [f for f in files if expectation(f) == "pass"]
    wrong = [f for f in files if expectation(f) != "pass"]
    assert len(correct) >= 1, f"{name}: no alternative correct implementation"
    assert len(wrong) >= 5, f"{name}: only {len(wrong)} wrong implementations"


@pytest.mark.parametrize("path", CATALOGUE, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_catalogued_implementation(path):
    expected = expectation(path)
    seed = zlib.crc32(path.stem.encode())  # varied across files, the same on every run
    report = check_source(get_exercise(path.parent.name), [path.read_text()], seed=seed)
    if expected == "pass":
        failures = [f"{r.name}: {r.hint}" for r in report.results if not r.passed]
        assert report.passed, (
            f"a correct implementation failed (seed {seed}): {failures} {report.notes}"
        )
    else:
        assert not report.passed, f"a wrong implementation passed every check (seed {seed})"
        hints = " | ".join(r.hint for r in report.results if not r.passed)
        assert expected in hints, f"no hint mentions {expected!r}: {hints}"


@pytest.mark.parametrize("chapter", sorted({e.chapter for e in EXERCISES.values()}))
def test_reference_solutions_earn_full_marks(chapter):
    reports = grade_notebook(REPO / "solutions" / f"{chapter}.ipynb")
    assert [r.exercise for r in reports] == [e.name for e in chapter_exercises(chapter)]
    for report in reports:
        assert report.passed, [(r.name, r.hint) for r in report.results if not r.passed]
        assert not report.notes and not report.flags


@pytest.mark.parametrize("chapter", sorted({e.chapter for e in EXERCISES.values()}))
def test_released_stubs_earn_nothing(chapter):
    for report in grade_notebook(REPO / "chapters" / f"{chapter}.ipynb"):
        assert report.earned == 0
        assert all("not implemented yet" in r.hint for r in report.results)
