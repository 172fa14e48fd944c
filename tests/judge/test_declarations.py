"""Each exercise's one home is its check module: the tables are read from its declaration, no
list of exercise names is kept anywhere else, and the README's and the docs' tables of exercises
are tested against the declarations."""

import ast
import importlib
import re
import subprocess
from pathlib import Path

import pytest
from conftest import PYTHON, REPO

from autograder.judge import answer_key
from autograder.judge.declaration import KINDS, read_declaration
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
    assert (name in answer_key.SCHEDULE_EXERCISES) == exercise.refuse_schedules
    assert not exercise.refuse_schedules or exercise.torch


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


# The tables of exercises in the README and the docs, each checked against the declarations below:
# (file, its header row).
CONTENTS = "| chapter | what you build | graded exercises |"
KIT_TABLE = "| exercise | what the kit holds for it before its deadline |"
CHECKED_TABLES = {("README.md", CONTENTS), ("docs/grading.md", KIT_TABLE)}
NAMED = re.compile(r"`(\w+)`(?:\s*\(([^()]*)\))?")  # a name, and the parenthesis right after it


def _table(text: str, header: str) -> list[list[str]]:
    """The cells of each row of the markdown table under `header` (its separator row left out)."""
    lines = text[text.index(header) :].splitlines()
    rows = []
    for line in lines[2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def contents_exercises(readme: str) -> list[tuple[str, str, str, bool]]:
    """(chapter, name, kind, extra credit) of every exercise the README's contents table names.

    Its kind is the first word of the parenthesis right after its name when that word is a kind,
    `implement` otherwise; an exercise named after "+ challenge:" is extra credit.
    """
    found = []
    for chapter, _, graded in _table(readme, CONTENTS):
        regular, _, challenges = graded.partition("+ challenge:")
        for part, extra in ((regular, False), (challenges, True)):
            for name, after in NAMED.findall(part):
                word = re.match(r"[a-z]*", after)[0]
                found.append(
                    (chapter.strip("`"), name, word if word in KINDS else "implement", extra)
                )
    return found


def kinds_paragraph(readme: str) -> dict[str, set[str]]:
    """The exercises the README's paragraph on kinds names under each kind."""
    start = readme.index("kind says what it asks:")
    paragraph = readme[start : readme.index("the other exercises are `implement`", start)]
    markers = list(re.finditer(r"`(\w+)`\s*\(", paragraph))
    markers = [marker for marker in markers if marker[1] in KINDS]
    found = {}
    for marker, following in zip(markers, [*markers[1:], None], strict=True):
        segment = paragraph[marker.end() : following.start() if following else None]
        found[marker[1]] = {name for name in re.findall(r"`(\w+)`", segment) if name in EXERCISES}
    return found


def declared_contents() -> list[tuple[str, str, str, bool]]:
    """What the README's contents table must say, read from the declarations."""
    return [(e.chapter, e.name, e.kind, e.extra) for e in EXERCISES.values()]


def test_the_readme_contents_table_is_the_declarations():
    # every exercise in its chapter's row, with its kind and whether it is a challenge
    readme = (REPO / "README.md").read_text()
    assert sorted(contents_exercises(readme)) == sorted(declared_contents())


def test_the_readme_kinds_are_the_declarations():
    readme = (REPO / "README.md").read_text()
    named = kinds_paragraph(readme)
    assert set(named) == set(KINDS)
    for kind in KINDS:
        declared = {name for name, e in EXERCISES.items() if e.kind == kind}
        # `implement` is "the other exercises": those it names are examples, the rest list all
        assert named[kind] <= declared if kind == "implement" else named[kind] == declared, kind


def test_a_readme_that_disagrees_with_a_declaration_is_found():
    # the readers above can fail: a kind and a challenge changed in the contents table, a name
    # left out of the kinds paragraph, are seen
    readme = (REPO / "README.md").read_text()
    changed = readme.replace("`mean_nll` (debug a draft)", "`mean_nll`", 1)
    changed = changed.replace("(+ challenge: `pre_split`)", "`pre_split`", 1)
    changed = changed.replace("`mean_nll`, `context_windows`", "`context_windows`", 1)
    wrong = set(contents_exercises(changed)) ^ set(declared_contents())
    assert {(name, kind, extra) for _, name, kind, extra in wrong} == {
        ("mean_nll", "debug", False),
        ("mean_nll", "implement", False),
        ("pre_split", "implement", True),
        ("pre_split", "implement", False),
    }
    assert "mean_nll" not in kinds_paragraph(changed)["debug"]


def test_the_kit_table_of_the_grading_guide_is_the_declarations():
    # docs/grading.md: what the kit holds for each exercise of the chapters it covers, all of them
    rows = _table((REPO / "docs" / "grading.md").read_text(), KIT_TABLE)
    named = {}
    for cell, _ in rows:
        number = re.fullmatch(r"(.*) \((\d\d)\)", cell)
        assert number, f"{cell}: expected the exercises, then their chapter's number: (NN)"
        for name in re.findall(r"`(\w+)`", number[1]):
            named[name] = number[2]
    chapters = set(named.values())
    assert named == {n: e.chapter[:2] for n, e in EXERCISES.items() if e.chapter[:2] in chapters}


def _names_only(cell: str) -> bool:
    """Whether a table's cell names one exercise or more and nothing else (a chapter aside)."""
    listed = re.fullmatch(r"(`\w+`(, | and |, and )?)+( \(\d\d\))?", cell)
    return bool(listed) and bool(set(re.findall(r"`(\w+)`", cell)) & set(EXERCISES))


def exercise_tables(text: str) -> list[str]:
    """The header rows of the markdown tables of exercises in `text`: a column headed "exercise(s)",
    or two rows or more whose first cell names exercises and nothing else."""
    tables, header, opening = [], None, 0
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if header is None:
                header, opening = line, 0
                column = any(re.search(r"\bexercises?$", cell) for cell in cells)
                if column:
                    tables.append(header)
            opening += _names_only(cells[0])
            continue
        if header is not None and opening >= 2 and header not in tables:
            tables.append(header)
        header = None
    return tables


def test_every_table_of_exercises_in_the_readme_and_the_docs_is_checked():
    # a table of exercises written by hand is one of those the tests above hold to the declarations
    tables = {
        (str(path.relative_to(REPO)), header)
        for path in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
        for header in exercise_tables(path.read_text())
    }
    assert tables == CHECKED_TABLES


def test_the_scan_finds_a_table_of_exercises():
    # the scan above can fail: a new table, by its column's name or by its rows, is found
    rows = "| --- | --- |\n| `softmax` | 2 |\n| `perplexity` | 1 |\n"
    text = f"| name | points |\n{rows}\nprose\n\n| task | exercise |\n| --- | --- |\n| a | b |\n"
    assert exercise_tables(text) == ["| name | points |", "| task | exercise |"]
    assert (
        exercise_tables("| guarantee | test |\n| --- | --- |\n| `softmax` is stable | t |\n") == []
    )
