"""Re-grading follows what decides a chapter's scores: its checks, the judge, the sandbox, the library."""

import json
import shutil
from pathlib import Path

from conftest import REPO

from autograder.course.autograde import grader_hash, grading_files


def _copy(root: Path) -> Path:
    for package in ("autograder", "proof_lm", "data"):
        shutil.copytree(
            REPO / package, root / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    return root


def _edit(path: Path, change) -> None:
    path.write_text(change(path.read_text()))


def test_a_chapter_is_graded_again_when_what_scores_it_changes_and_only_then(tmp_path):
    root = _copy(tmp_path)
    first, gpt = "01_bigram_counting", "08_gpt"

    def hashes() -> tuple[str, str]:
        return grader_hash(first, root), grader_hash(gpt, root)

    before = hashes()
    # a comment, a docstring, the server, the command lines: no score changes, nothing re-graded
    _edit(root / "autograder/server/web.py", lambda s: s + "\nTHEME = 'dark'  # the server's\n")
    _edit(
        root / "autograder/cli/student.py", lambda s: s.replace("import", "import", 1) + "\n# x\n"
    )
    _edit(root / "autograder/judge/runner.py", lambda s: s.replace('"""', '"""Reworded. ', 1))
    # the class report decides no score: a change to it re-grades nothing
    _edit(root / "autograder/course/report/stats.py", lambda s: s + "\nEXTRA = 3\n")
    _edit(
        root / "autograder/judge/checks/gpt.py", lambda s: s + "\n# a comment on the GPT's checks\n"
    )
    assert hashes() == before
    # one of chapter 08's checks: chapter 08 alone
    _edit(root / "autograder/judge/checks/gpt_shared.py", lambda s: s + "\nEXTRA = 1\n")
    after_checks = hashes()
    assert after_checks[0] == before[0] and after_checks[1] != before[1]
    # the judge, the grading task and its recording, the library and its data, the sandbox's
    # guest (its refusal table too): every chapter
    for path in (
        "autograder/judge/report.py",
        "autograder/course/task.py",
        "autograder/course/record.py",
        "proof_lm/ngram.py",
        "data/names.txt",
    ):
        now = hashes()
        _edit(root / path, lambda s: s + "\nEXTRA = 2\n")
        assert all(a != b for a, b in zip(hashes(), now, strict=True)), path
    now = hashes()
    table = root / "autograder/sandbox/guest/torch_refused.json"
    refused = json.loads(table.read_text())
    refused["modules"]["torch.nn.extra"] = {
        "file": "nn/extra.py",
        "classes": ["Extra"],
        "functions": [],
    }
    table.write_text(json.dumps(refused))
    assert all(a != b for a, b in zip(hashes(), now, strict=True))


NEW_EXERCISE = '''"""Hidden checks for chapter 01's `vocabulary_size`."""

from autograder.judge.declaration import Exercise

EXERCISE = Exercise(name="vocabulary_size", chapter="01_bigram_counting", points=1)


def vocabulary_size_checks(rng):
    return []
'''


def test_adding_or_changing_an_exercise_re_grades_its_chapter_alone(tmp_path):
    root = _copy(tmp_path)
    first, gpt = "01_bigram_counting", "08_gpt"

    def hashes() -> tuple[str, str]:
        return grader_hash(first, root), grader_hash(gpt, root)

    before = hashes()
    # a new exercise of chapter 01, declared in its check module: chapter 01 alone
    (root / "autograder/judge/checks/vocabulary_size.py").write_text(NEW_EXERCISE)
    added = hashes()
    assert added[0] != before[0] and added[1] == before[1]
    # its points: chapter 01 alone
    _edit(root / "autograder/judge/checks/vocabulary_size.py", lambda s: s.replace("=1)", "=2)"))
    changed = hashes()
    assert changed[0] != added[0] and changed[1] == added[1]
    # one of chapter 08's declarations (what of the library answers GPT): chapter 08 alone
    now = changed
    _edit(
        root / "autograder/judge/checks/gpt.py",
        lambda s: s.replace("library=(", "library=('gpt2:Block', ", 1),
    )
    changed = hashes()
    assert changed[0] == now[0] and changed[1] != now[1]


def test_the_files_of_a_chapter_are_its_check_modules_and_what_they_import():
    names = {p.name for p in grading_files("01_bigram_counting") if "checks" in p.parts}
    assert {"bigram_counts.py", "bigram_counting_shared.py", "cases.py", "layouts.py"} <= names
    assert not names & {"gpt.py", "train_gpt.py", "softmax.py"}
