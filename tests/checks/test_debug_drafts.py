"""Every debug draft keeps a planted bug that its visible tests miss: the student finds it with a
test of their own or by a hidden check's symptom, not because a visible test pointed at it."""

import json
import subprocess
import sys

import pytest
from conftest import REPO

from autograder.judge.exercises import EXERCISES

DEBUG = sorted(name for name, exercise in EXERCISES.items() if exercise.kind == "debug")
# Visible tests that read names only the chapter's demonstrations define: judged in the notebook.
READS_DEMONSTRATIONS = {"bpe_decode", "bpe_encode", "context_windows"}


@pytest.fixture(scope="module")
def verdicts() -> dict[str, dict[str, str]]:
    """What each debug exercise's visible tests say of its drafts with one bug left (one process,
    a few seconds: the chapters' set-up cells and references, no demonstration)."""
    run = subprocess.run(
        [sys.executable, "-m", "tests.support.visible_tests", *DEBUG],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return json.loads(run.stdout.splitlines()[-1])


@pytest.mark.parametrize("name", DEBUG)
def test_a_planted_bug_survives_the_visible_tests(name, verdicts):
    found = verdicts[name]
    if name in READS_DEMONSTRATIONS:
        assert found["correct_draft_fixed"].startswith("NameError"), found
        return
    assert found["correct_draft_fixed"] == "pass", found["correct_draft_fixed"]
    survivors = [
        stem
        for stem, verdict in found.items()
        if stem != "correct_draft_fixed" and verdict == "pass"
    ]
    assert len(found) >= 3, f"{name}: fewer than two catalogued drafts with one bug left"
    assert survivors, f"{name}: the visible tests catch every planted bug"
