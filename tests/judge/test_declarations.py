"""Each exercise's one home is its check module: the tables are read from its declaration, and no
list of exercise names is kept anywhere else."""

import ast
import importlib
import subprocess
from pathlib import Path

import pytest
from conftest import PYTHON, REPO

from autograder.judge import answer_key
from autograder.judge.declaration import read_declaration
from autograder.judge.exercises import EXERCISES, declarations

# Files that may hold a literal collection of exercise names, each for its reason. Everything
# else derives its lists from the declarations (`EXERCISES`, `chapter_exercises`, the answer keys).
NAMED_ON_PURPOSE = {
    # tests that pick a few exercises as examples of a behaviour, not a table to keep in step
    "tests/course/test_class_report.py": "the exercises the fixture class's notebooks break",
    "tests/course/test_kit_stages.py": "what the paste answers with PyTorch at hand (docs/grading.md)",
    "tests/judge/test_grade_once.py": "chapter 01's exercises a planted crash and loop reach",
    "tests/judge/test_notes.py": "report names for a note stated once",
    "tests/library/test_bpe.py": "the library's three BPE functions, each refused alone",
    "tests/security/test_answer_keys.py": "exercises the search must find PyTorch's answer for",
    # the search's adapters: how to call a candidate with one exercise's arguments (its signature)
    "tests/support/answer_search.py": "adapters keyed by the exercise whose signature they fit",
    "tests/support/translation_attack.py": "the attack's adapters, keyed by the exercise they fit",
    "tests/checks/test_check_helpers.py": "the gradient exercises graded beyond finite differences",
    "tests/checks/test_debug_drafts.py": "debug drafts the test cannot run alone, or not yet held to it",
    "tests/checks/test_debug_visible_tests.py": "the debug exercises held to it, with their demos",
}
SKIPPED = ("autograder/judge/checks/", "tests/implementations/")  # the homes and the catalogues


def _python_files() -> list[Path]:
    """The repository's own Python files, outside the check modules and the catalogue folders."""
    files = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    return [REPO / f for f in files if not f.startswith(SKIPPED) and (REPO / f).is_file()]


def named_lists(path: Path, names: set[str]) -> list[int]:
    """The lines of `path` holding a literal list, tuple, set or dict of two exercise names or more."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            items = node.elts
        elif isinstance(node, ast.Dict):
            items = [key for key in node.keys if key is not None]
        else:
            continue
        named = [i for i in items if isinstance(i, ast.Constant) and i.value in names]
        if len(named) >= 2:
            lines.append(node.lineno)
    return lines


def test_no_list_of_exercise_names_is_kept_outside_the_check_modules():
    found = {
        str(path.relative_to(REPO)): lines
        for path in _python_files()
        if (lines := named_lists(path, set(EXERCISES)))
    }
    assert found and set(found) <= set(NAMED_ON_PURPOSE), {
        path: lines for path, lines in found.items() if path not in NAMED_ON_PURPOSE
    }


def test_the_scan_finds_a_list_of_exercise_names(tmp_path):
    # the scan above can fail: a table of names written out is found
    table = tmp_path / "table.py"
    table.write_text('EXERCISES = {"softmax": 2, "perplexity": 1}\nONE = ("softmax",)\n')
    assert named_lists(table, set(EXERCISES)) == [1]


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_a_check_module_declares_what_the_tables_read(name):
    exercise = EXERCISES[name]
    module = importlib.import_module(f"autograder.judge.checks.{exercise.module}")
    assert exercise == module.EXERCISE  # read without importing = what importing gives
    assert callable(getattr(module, f"{name}_checks"))
    assert hasattr(module, f"{name}_timed") == exercise.timed
    assert answer_key.LIBRARY_ANSWERS.get(name, ()) == exercise.library
    assert (name in answer_key.ATTENTION_EXERCISES) == exercise.refuse_attention
    assert not exercise.refuse_attention or exercise.torch


def test_the_shared_modules_declare_nothing():
    modules = {path.stem for path in (REPO / "autograder/judge/checks").glob("*.py")}
    declared = {exercise.module for exercise in declarations()}
    assert declared == {e.module for e in EXERCISES.values()}
    assert all(
        m.endswith("_shared") or m in {"__init__", "cases", "layouts"} for m in modules - declared
    )


@pytest.mark.parametrize(
    ("declaration", "error"),
    [
        (
            'EXERCISE = Exercise(name="softmax", chapter="02_neural_bigram", points=POINTS)\n',
            "literals",
        ),
        ('EXERCISE = Exercise(name="softmax", chapter="02_neural_bigram", points=0)\n', "positive"),
        ('EXERCISE = Exercise(name="softmax", chapter="two", points=1)\n', "NN_name"),
        ('EXERCISE = Exercise(name="top_k_probs", chapter="05_sampling", points=1)\n', "named as"),
        ('EXERCISE = dict(name="softmax")\n', "Exercise or Speed"),
    ],
)
def test_a_declaration_that_cannot_be_read_is_refused(tmp_path, declaration, error):
    path = tmp_path / "softmax.py"
    path.write_text(f'"""Checks."""\n\nimport numpy as np\n\n{declaration}')
    with pytest.raises(ValueError, match=error):
        read_declaration(path)


def test_listing_the_exercises_imports_no_check_module_and_no_pytorch():
    done = subprocess.run(
        [PYTHON, "-X", "importtime", "-m", "autograder", "list"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    imported = {line.rpartition("|")[2].strip() for line in done.stderr.splitlines()}
    assert "autograder.judge.exercises" in imported and all(n in done.stdout for n in EXERCISES)
    assert not {m for m in imported if m.split(".")[0] == "torch"}
    assert not {m for m in imported if m.startswith("autograder.judge.checks.")}
