"""A source notebook's hidden tests: each graded cell of an exercise holds one hidden block that
runs that exercise's checks on it (`autograder.kernel.run_checks`), which passes quietly on a
right answer and fails with the checks' hints on a wrong one. The references pass every check:
tests/checks/test_autograder_catalogue.py."""

import json
import re

import pytest
from conftest import IMPLEMENTATIONS, REPO

from autograder.course.directory import chapters
from autograder.judge.exercises import EXERCISES
from autograder.kernel import run_checks

HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", re.S)


@pytest.mark.parametrize("chapter", chapters())
def test_each_exercise_has_one_hidden_block_that_runs_its_checks(chapter):
    cells = json.loads((REPO / "solutions" / f"{chapter}.ipynb").read_text())["cells"]
    blocks = {}
    for cell in cells:
        found = HIDDEN.findall("".join(cell["source"]))
        if found:
            grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
            assert grade_id not in blocks and len(found) == 1, f"{grade_id}: more than one block"
            blocks[grade_id] = [line for line in found[0].splitlines() if line.strip()]
    assert blocks == {
        name: ["from autograder.kernel import run_checks", f'run_checks("{name}", {name})']
        for name, exercise in EXERCISES.items()
        if exercise.chapter == chapter
    }


def _implementation(name: str, stem: str):
    namespace: dict = {}
    exec((IMPLEMENTATIONS / name / f"{stem}.py").read_text(), namespace)
    return namespace[name]


def test_run_checks_passes_a_right_answer_and_names_a_wrong_ones_symptom(capsys):
    run_checks("softmax", _implementation("softmax", "correct_logsumexp"))
    assert "softmax" in capsys.readouterr().out
    with pytest.raises(AssertionError, match=r"softmax failed \d+ hidden checks.*each slice's own"):
        run_checks("softmax", _implementation("softmax", "wrong_global_max"))
