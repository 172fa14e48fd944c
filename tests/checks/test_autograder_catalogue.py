"""The autograder judged by known implementations: references pass, stubs fail, every catalogued bug fails."""

import ast
import json
import zlib
from pathlib import Path

import pytest
from conftest import IMPLEMENTATIONS, REPO

from autograder.judge.exercises import EXERCISES, chapter_exercises, get_exercise
from autograder.judge.runner import check_each, check_source, grade_notebook
from autograder.judge.verdicts import ExerciseReport

# Files with one bug whose every failing check must name it, or say it fails for the same reason:
# the cause is named once, never blamed on dropout, on state kept across calls, or on the mask.
ONE_BUG_ONE_DIAGNOSIS = (
    {
        f"CausalSelfAttention/{name}"
        for name in (
            "wrong_scale_width",
            "wrong_no_scale",
            "wrong_merge",
            "wrong_mask_off_by_one",
            "wrong_qkv_order",
            "wrong_reshape_heads",
            "wrong_interleaved_heads",
            "wrong_dropout_in_eval",
        )
    }
    | {  # a draft with one planted bug left; causal_attention's softmax over the wrong axis is also
        # named by its symptoms, rows that do not sum to 1 and an unstable softmax
        f"{path.parent.name}/{path.stem}"
        for path in IMPLEMENTATIONS.glob("*/wrong_draft_*_left.py")
        if f"{path.parent.name}/{path.stem}" != "causal_attention/wrong_draft_axis_left"
    }
    | {  # each slip of the training loop, named by every check it fails
        f"train_gpt/{path.stem}" for path in IMPLEMENTATIONS.glob("train_gpt/wrong_*.py")
    }
)
DEBUG_EXERCISES = sorted(name for name, exercise in EXERCISES.items() if exercise.kind == "debug")


def expectation(path: Path) -> str:
    """The file's EXPECT constant: "pass", or a phrase the failing hint must contain."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and node.targets[0].id == "EXPECT":
            return node.value.value
    raise AssertionError(f"{path} has no EXPECT")


def _function(tree: ast.Module, name: str) -> str:
    """The dump of the function `name` in `tree`, without its docstring and under one name."""
    (function,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    body = function.body[1:] if isinstance(function.body[0], ast.Expr) else function.body
    return ast.dump(ast.FunctionDef(**{**function.__dict__, "name": "f", "body": body}))


@pytest.mark.parametrize("name", DEBUG_EXERCISES)
def test_the_catalogued_draft_is_the_one_handed_out(name):
    """A debug exercise's draft cell is, line for line, the catalogue's draft as given: the
    diagnoses the catalogue proves on it are the ones a student who hands in the draft meets."""
    cells = json.loads((REPO / "solutions" / f"{EXERCISES[name].chapter}.ipynb").read_text())
    (draft,) = [
        "".join(cell["source"])
        for cell in cells["cells"]
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == f"{name}_draft"
    ]
    given = (IMPLEMENTATIONS / name / "wrong_draft_as_given.py").read_text()
    assert _function(ast.parse(draft), f"{name}_draft") == _function(ast.parse(given), name)
    for bug in (IMPLEMENTATIONS / name).glob("wrong_draft_*_left.py"):
        assert expectation(bug) != "pass"
    assert expectation(IMPLEMENTATIONS / name / "correct_draft_fixed.py") == "pass"


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_every_exercise_has_a_catalogue(name):
    files = list((IMPLEMENTATIONS / name).glob("*.py"))
    correct = [f for f in files if expectation(f) == "pass"]
    wrong = [f for f in files if expectation(f) != "pass"]
    assert len(correct) >= 1, f"{name}: no alternative correct implementation"
    assert len(wrong) >= 5, f"{name}: only {len(wrong)} wrong implementations"


def seed_of(path: Path) -> int:
    """A catalogued file's seed: varied across files, the same on every run."""
    return zlib.crc32(path.stem.encode())


def misjudged(path: Path, report: ExerciseReport) -> str | None:
    """What the grader's report on a catalogued file gets wrong (None: what the file expects)."""
    expected, seed = expectation(path), seed_of(path)
    if expected == "pass":
        failures = [f"{r.name}: {r.hint}" for r in report.results if not r.passed]
        if not report.passed:
            return f"a correct implementation failed (seed {seed}): {failures} {report.notes}"
        return None
    if report.passed:
        return f"a wrong implementation passed every check (seed {seed})"
    hints = " | ".join(r.hint for r in report.results if not r.passed)
    if expected not in hints:
        return f"no hint mentions {expected!r} (seed {seed}): {hints} {report.notes}"
    if f"{path.parent.name}/{path.stem}" in ONE_BUG_ONE_DIAGNOSIS:
        blamed = [
            f"{r.name}: {r.hint}"
            for r in report.results
            if not r.passed and expected not in r.hint and "the same mistake" not in r.hint
        ]
        if blamed:
            return f"checks that blame another cause than {expected!r} (seed {seed}): {blamed}"
    return None


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_catalogued_implementations(name):
    """Every catalogued file of an exercise, graded by one grading process (`check_each`: each
    file in a copy of its own, the report `check_source` would give it): correct ones pass,
    each wrong one fails with the hint its EXPECT names."""
    files = sorted((IMPLEMENTATIONS / name).glob("*.py"))
    exercise = get_exercise(name)
    reports = check_each(
        exercise,
        [[file.read_text()] for file in files],
        [seed_of(file) for file in files],
        preload=("torch._dynamo",) if exercise.torch else (),  # a first optimizer's imports
    )
    problems = [
        f"{name}/{path.stem}: {problem}"
        for path, report in zip(files, reports, strict=True)
        if (problem := misjudged(path, report))
    ]
    assert not problems, "\n".join(problems)


def _summary(report: ExerciseReport) -> tuple:
    return ([(r.name, r.passed, r.hint) for r in report.results], report.notes, report.flags)


# Files that do to their copy what no honest one does: rebind NumPy for whoever comes next, kill
# the grading process that forked them (alone, that process is its own: the pid namespace's
# first process, which no signal from inside stops), hang. Each costs its own report, never a
# neighbour's.
POISON = "import numpy as np\nnp.exp = lambda x: x  # every later softmax wrong, if it carried\n"
KILL = "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n"
HANG = "while True:\n    pass\n"


def test_a_batch_grades_each_file_as_a_process_of_its_own_would():
    """`check_each` (one grading process for many files) gives each file the report
    `check_source` gives it alone: the catalogue's verdicts are the grader's. Files that poison
    what follows, kill the process that forked them or never finish loading cost themselves."""
    folder = IMPLEMENTATIONS / "softmax"
    correct = (folder / "correct_logsumexp.py").read_text()
    wrong = (folder / "wrong_global_max.py").read_text()
    batch = [
        [correct],
        [POISON + correct],
        [correct],
        [wrong],
        [KILL + correct],
        [correct],
        [HANG + correct],
        [correct],
    ]
    seeds = list(range(1, len(batch) + 1))
    exercise = get_exercise("softmax")
    together = check_each(exercise, batch, seeds, timeout=4.0, load_timeout=4.0)
    alone = [
        check_source(exercise, sources, timeout=4.0, seed=seed, load_timeout=4.0)
        for sources, seed in zip(batch, seeds, strict=True)
    ]
    assert [_summary(r) for r in together] == [_summary(r) for r in alone]
    assert [r.passed for r in together] == [True, False, True, False, True, True, False, True]
    assert [r.seed for r in together] == seeds


def test_a_batch_of_pytorch_files_grades_each_as_alone():
    # PyTorch imported once and its optimizers' modules preloaded change no report
    files = sorted((IMPLEMENTATIONS / "train_gpt").glob("*.py"))
    files = files[:2] + files[-2:]  # correct ones first in the folder, wrong ones last
    exercise = get_exercise("train_gpt")
    together = check_each(
        exercise,
        [[f.read_text()] for f in files],
        [seed_of(f) for f in files],
        preload=("torch._dynamo",),
    )
    alone = [check_source(exercise, [f.read_text()], seed=seed_of(f)) for f in files]
    assert [_summary(r) for r in together] == [_summary(r) for r in alone]


def set_up_names(chapter: str) -> list[str]:
    """Every name the chapter's locked set-up cell binds (imports and assignments), read from its notebook."""
    cells = json.loads((REPO / "solutions" / f"{chapter}.ipynb").read_text())["cells"]
    setup = next(c for c in cells if c["metadata"].get("nbgrader", {}).get("grade_id") == "setup")
    tree = ast.parse("".join(setup["source"]))
    names = []
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            names += [(a.asname or a.name).split(".")[0] for a in node.names]
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
    return names


# A cell of the student's own, as the notebook runs it after the set-up: it uses every name the
# set-up cell binds, and in chapter 08 builds an optimizer at top level (which loads modules of
# torch._inductor and torch.distributed.tensor: no attention of PyTorch's).
OWN_CELL = "_used = ({names},)\n"
OPTIMIZER_CELL = "_optimizer = torch.optim.AdamW(nn.Linear(4, 4).parameters(), lr=1e-3)\n"


@pytest.mark.parametrize("chapter", sorted({e.chapter for e in EXERCISES.values()}))
def test_reference_solutions_earn_full_marks(chapter, tmp_path):
    # the solution notebook with a cell of the student's own appended: whatever runs top to bottom
    # runs where it is graded (its failure would be a note), and earns the same
    notebook = json.loads((REPO / "solutions" / f"{chapter}.ipynb").read_text())
    own = OWN_CELL.format(names=", ".join(set_up_names(chapter)))
    own += OPTIMIZER_CELL if chapter_exercises(chapter)[0].torch else ""
    notebook["cells"].append(
        {
            "cell_type": "code",
            "execution_count": None,
            "id": "own",
            "metadata": {},
            "outputs": [],
            "source": own,
        }
    )
    (tmp_path / f"{chapter}.ipynb").write_text(json.dumps(notebook))
    reports = grade_notebook(tmp_path / f"{chapter}.ipynb")
    assert [r.exercise for r in reports] == [e.name for e in chapter_exercises(chapter)]
    for report in reports:
        assert report.passed, [(r.name, r.hint) for r in report.results if not r.passed]
        assert not report.notes and not report.flags


@pytest.mark.parametrize("chapter", sorted({e.chapter for e in EXERCISES.values()}))
def test_released_stubs_earn_nothing(chapter):
    for report in grade_notebook(REPO / "chapters" / f"{chapter}.ipynb"):
        assert report.earned == 0
        assert all("not implemented yet" in r.hint for r in report.results)


def _normalised(text: str) -> str:
    return "".join(text.split())


def _reference_expressions() -> dict[str, str]:
    """Every expression a reference solution computes (right-hand sides, returns, calls), with
    its exercise, unless the released notebook holds it too (the text states it: not an answer)."""
    import re

    import nbformat

    from autograder.judge.references import reference_solutions

    found = {}
    for chapter in sorted({e.chapter for e in EXERCISES.values()}):
        released = nbformat.read(REPO / "chapters" / f"{chapter}.ipynb", as_version=4)
        given = _normalised("".join(cell.source for cell in released.cells))
        for name, source in reference_solutions(chapter).items():
            for node in ast.walk(ast.parse(source)):
                value = getattr(node, "value", None)
                if not isinstance(node, ast.Assign | ast.AugAssign | ast.Return | ast.Expr):
                    continue
                if value is None or isinstance(value, ast.Constant):
                    continue
                text = _normalised(ast.unparse(value))
                if len(text) >= 12 and re.search(r"[-+*/@\[(]", text) and text not in given:
                    found[text] = name
    return found


def _hint_texts() -> list[tuple[str, str]]:
    """Every string a check module can show a student: its constants and f-strings' fixed parts
    (docstrings left out)."""
    texts = []
    for path in sorted((REPO / "autograder" / "judge" / "checks").glob("*.py")):
        tree = ast.parse(path.read_text())
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                parts = [v.value for v in node.values if isinstance(v, ast.Constant)]
                texts.append((path.name, "".join(map(str, parts))))
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
            ):
                texts.append((path.name, node.value))
    return texts


def test_no_hint_holds_an_expression_of_a_reference_solution():
    """A failure hint names the symptom and the concept, never the corrected line: no expression
    of a reference solution that the released text does not state appears in a check module's
    strings (whitespace ignored)."""
    expressions = _reference_expressions()
    assert len(expressions) > 100  # the search sees the references
    leaks = [
        f"{where}: {text[:100]!r} holds {name}'s {expression!r}"
        for where, text in _hint_texts()
        for expression, name in expressions.items()
        if expression in _normalised(text)
    ]
    assert not leaks, "\n".join(leaks)


# What a derive exercise's reference shares with the released text: the forward pass, the names
# of the inputs and of the result; reviewed by hand, so that a step of a derivation added to the
# text fails the test below.
DERIVE_SHARED = {
    "bigram_loss_and_grad": {
        "len(previous)",
        "table[previous]",
        "logits=table[previous]",
        "softmax(logits)",
        "(loss,grad)",
    },
    "batchnorm_backward": {"dout*gamma"},  # the first local step, given as the method's example
    "train_gpt": {"get_batch(data,block_size,recipe.batch_size,generator)"},  # the contract's draw
    "layer_norm_backward": {
        "(dx,dgamma,dbeta)",
        "C=x.shape[-1]",
        "x.shape[-1]",
    },  # C, as the draft reads it
    "loss_floor_and_gaps": {"(floor,gaps)"},  # the return contract
    "causal_attention_backward": {"math.sqrt(d)"},
    "numerical_gradient": {"x[index]"},  # the contract says how to reach an entry
}


@pytest.mark.parametrize(
    "name", sorted(name for name, exercise in EXERCISES.items() if exercise.kind == "derive")
)
def test_a_derivation_is_not_in_the_released_text(name):
    """No statement or expression of a derive exercise's reference (assignments whole, their
    values, returns) is in the released notebook, beyond the forward pass listed above."""
    import re

    import nbformat

    from autograder.judge.references import reference_solutions

    chapter = EXERCISES[name].chapter
    released = nbformat.read(REPO / "chapters" / f"{chapter}.ipynb", as_version=4)
    given = _normalised("".join(cell.source for cell in released.cells))
    shared = set()
    for node in ast.walk(ast.parse(reference_solutions(chapter)[name])):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.Return) and node.value is not None:
            for text in {ast.unparse(node), ast.unparse(node.value)}:
                text = _normalised(text)
                if len(text) >= 8 and re.search(r"[-+*/@\[(]", text) and text in given:
                    shared.add(text)
    assert shared <= DERIVE_SHARED.get(name, set()), sorted(shared - DERIVE_SHARED.get(name, set()))
