"""The kit answers no exercise before its deadline: its library, copied whole, earns nothing.

The attack is copying, not calling: every module of the kit's `proof_lm`, at the stage just before
an exercise's chapter is due (the most its library ever holds while that exercise is open), is
pasted as source under another package name, one top-level statement at a time, where the
exercise is graded: for a NumPy exercise with no PyTorch (an import of it gives a module whose every
attribute raises, as in its sandbox). Every top-level function and class, private helpers included,
is then bound to the exercise through the adapters of `support/answer_search.py` on the exercise's own
check inputs: nothing may reproduce the answer. Earlier stages hold back more (what is held back
at a stage is held back at every earlier one), so they are covered.
"""

import __future__

import ast
import builtins
import datetime as dt
import inspect
import re
import shutil
import types
from pathlib import Path

import pytest
from conftest import REPO
from support.answer_search import GRADED, _run_guarded, check_inputs, search

from autograder.course.directory import chapters
from autograder.judge.exercises import EXERCISES, get_exercise
from autograder.judge.notebook import cell_source, read_notebook
from autograder.judge.runner import check_source
from autograder.kit import stages
from autograder.sandbox.guest.no_torch import Absent  # PyTorch as a NumPy exercise's sandbox has it


def kit_library(stage: list[str], folder: Path) -> Path:
    """The kit's `proof_lm` at `stage` (the chapters whose answers it carries), built in `folder`."""
    library = folder / "proof_lm"
    shutil.copytree(REPO / "proof_lm", library, ignore=shutil.ignore_patterns("__pycache__"))
    stages.hold_back(library, stage)
    return library


def add_released_notebooks(library: Path) -> None:
    """Beside the library's modules, one per released notebook: the imports, functions and classes
    of all its code cells (drafts of the debug exercises, helpers, the stubs students fill in)."""
    for path in sorted((REPO / "chapters").glob("*.ipynb")):
        kept = []
        for cell in read_notebook(path)["cells"]:
            if cell["cell_type"] != "code":
                continue
            try:
                tree = ast.parse(cell_source(cell))
            except SyntaxError:
                continue
            kept += [
                ast.unparse(node)
                for node in tree.body
                if isinstance(node, ast.Import | ast.ImportFrom | ast.FunctionDef | ast.ClassDef)
            ]
        (library / f"released_{path.stem}.py").write_text("\n\n".join(kept) + "\n")


def paste(library: Path, torch_available: bool) -> dict[str, object]:
    """Every top-level function and class of the pasted library, as "module:name".

    Each module's source is run one top-level statement at a time (a statement that fails is
    left out, as a student would leave out a line that does not run) in a module of another name;
    `proof_lm.x` inside it means the pasted `x`, and PyTorch is there only when `torch_available`.
    """
    modules: dict[str, types.ModuleType] = {}

    class Package(types.ModuleType):
        def __getattr__(self, name: str):
            if name.startswith("__") or not (library / f"{name}.py").is_file():
                raise AttributeError(name)
            return load(name)

    package = Package("pasted")

    def importer(name, globals=None, locals=None, fromlist=(), level=0):
        root, _, rest = name.partition(".")
        if root == "proof_lm":
            module = load(rest.partition(".")[0]) if rest else package
            return module if fromlist else package
        if root in ("torch", "functorch", "torchgen") and not torch_available:
            return Absent(root)
        return builtins.__import__(name, globals, locals, fromlist, level)

    pasted_builtins = dict(vars(builtins), __import__=importer)

    def load(name: str) -> types.ModuleType:
        if name in modules:
            return modules[name]
        module = modules[name] = types.ModuleType(f"pasted_{name}")
        module.__dict__["__builtins__"] = pasted_builtins
        path = library / f"{name}.py"
        tree = ast.parse(path.read_text())
        future = 0  # what a __future__ import at the top would give every statement of the paste
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                future |= sum(getattr(__future__, a.name).compiler_flag for a in node.names)
        for statement in tree.body:
            for node in ast.walk(statement):  # an annotation naming PyTorch would not stop a copy
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    node.returns = None
                elif isinstance(node, ast.arg):
                    node.annotation = None
            code = compile(ast.Module([statement], []), str(path), "exec", flags=future)
            try:
                exec(code, module.__dict__)
            except Exception:
                continue
        return module

    found = {}
    for path in sorted(library.glob("*.py")):
        module = load(path.stem)
        for name, obj in vars(module).items():
            defined_here = getattr(obj, "__module__", None) == module.__name__
            if defined_here and (inspect.isfunction(obj) or inspect.isclass(obj)):
                found[f"{path.stem}:{name}"] = obj
    return found


def stage_before(exercise: str) -> list[str]:
    """The most a kit can carry while `exercise` is open: every other chapter's answers (deadlines
    need not follow the chapters' order)."""
    return [chapter for chapter in chapters() if chapter != get_exercise(exercise).chapter]


# Exercises whose checks call them only through probes (a closure to differentiate, a generator to
# draw from, a model to train), as their declarations say: the search has no plain call to make;
# what answers them is covered by LIBRARY_ANSWERS (held back, or unable to run where they are
# graded). The test below holds each declaration to its checks' calls.
PROBE_ONLY = {name for name, exercise in EXERCISES.items() if exercise.probe_only}


def test_the_grading_guide_names_the_probe_only_exercises():
    # docs/grading.md's list of the exercises the search cannot reach is this list, not a copy of it
    text = " ".join((REPO / "docs" / "grading.md").read_text().split())
    listed = text.partition("an exercise checked only through probes (")[2].partition(":")[0]
    assert listed and set(re.findall(r"`(\w+)`", listed)) == PROBE_ONLY


@pytest.fixture(scope="module")
def pasted_stages(tmp_path_factory: pytest.TempPathFactory):
    """The pasted kit library of each stage, with and without PyTorch, built once."""
    cache: dict[tuple[tuple[str, ...], bool], tuple[Path, dict[str, object]]] = {}

    def at(stage: list[str], torch_available: bool) -> tuple[Path, dict[str, object]]:
        key = (tuple(stage), torch_available)
        if key not in cache:
            folder = tmp_path_factory.mktemp("stage")
            library = kit_library(stage, folder)
            add_released_notebooks(library)
            cache[key] = library, paste(library, torch_available)
        return cache[key]

    return at


@pytest.mark.parametrize("exercise", GRADED)
def test_no_exercise_is_answered_by_copying_the_kit_before_its_deadline(exercise, pasted_stages):
    # the library of the stage, and every function and class of the released notebooks' code
    # cells: what reproduces the answer on the check inputs is then graded for real, pasted whole
    # under the exercise's name (a debug exercise's draft reproduces easy cases, and fails)
    stage = stage_before(exercise)
    assert bool(check_inputs(exercise)) == (exercise not in PROBE_ONLY)
    library, candidates = pasted_stages(stage, EXERCISES[exercise].torch)
    found = set(search(exercise, candidates, False))
    earning = []
    for entry in sorted(found):
        module, name = entry.split(":")
        pasted = [(library / f"{module}.py").read_text(), f"{exercise} = {name}\n"]
        if check_source(get_exercise(exercise), pasted, seed=0).passed:
            earning.append(entry)
    assert earning == [], f"a kit with the answers of {stage or 'no chapter'} answers {exercise}"


def test_the_attack_finds_what_the_library_would_answer_with_pytorch_at_hand(tmp_path):
    # the same paste with PyTorch available finds the library's answers to NumPy exercises: what
    # keeps them out is the sandbox without PyTorch, and the real grader shows it
    library = kit_library(chapters(), tmp_path)
    with_torch = paste(library, torch_available=True)
    for exercise, entry in [
        ("bigram_probs", "ngram:add_k_probs"),
        ("mean_nll", "metrics:bigram_mean_nll"),
        ("min_p_probs", "sampling:filter_probs"),
        ("nplm_params", "nplm:init_nplm"),
    ]:
        assert entry in search(exercise, with_torch, False), (exercise, entry)
        assert entry not in search(exercise, paste(library, torch_available=False), False)
    without_torch = paste(library, torch_available=False)
    for exercise in ("bpe_train", "bpe_encode", "bpe_decode"):
        assert f"bpe:{exercise}" in search(exercise, with_torch, False), exercise
        assert f"bpe:{exercise}" not in search(exercise, without_torch, False), exercise
    source = (REPO / "proof_lm" / "ngram.py").read_text()
    pasted = [source, "def bigram_probs(counts, k=1.0):\n    return add_k_probs(counts, k)\n"]
    report = check_source(get_exercise("bigram_probs"), pasted, seed=3)
    assert report.earned == 0 and report.points > 0
    assert "graded without PyTorch" in " ".join(r.hint for r in report.results)


def test_a_held_back_function_says_what_it_answers(tmp_path):
    library = kit_library(chapters()[:7], tmp_path)
    assert "HeldBack" in (library / "gpt2.py").read_text()
    assert "HeldBack" not in (library / "gpt.py").read_text()  # refused where it could answer
    candidates = paste(library, torch_available=True)
    with pytest.raises(RuntimeError, match=r"answers .*get_batch \(chapter 08_gpt\)"):
        candidates["gpt2:get_batch"]([1, 2, 3], 2, 1, None)
    everything = kit_library(chapters(), tmp_path / "all")
    assert "HeldBack" not in "".join(p.read_text() for p in everything.glob("*.py"))


# train_gpt as a student would assemble it from the kit's training module: its optimizer (the
# parameter groups the exercise's text specifies in words) and its schedule, around the loop the
# exercise spells out step by step. With `COSINE` in place of the library's rate it is the answer.
ASSEMBLED = """
def train_gpt(model, data, block_size, recipe, generator, max_grad_norm=1.0):
    optimizer = make_optimizer("adamw", model, recipe.learning_rate, recipe.weight_decay)
    device = next(model.parameters()).device
    model.train()
    losses = []
    for step in range(recipe.steps):
        for group in optimizer.param_groups:
            group["lr"] = RATE
        x, y = get_batch(data, block_size, recipe.batch_size, generator)
        _, loss = model(x.to(device), y.to(device))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        losses.append(loss.item())
    return losses
"""
COSINE = (
    "(learning_rate_at(step, recipe) if step < recipe.warmup else recipe.learning_rate * "
    "(recipe.final_fraction + (1 - recipe.final_fraction) * 0.5 * (1 + math.cos(math.pi * "
    "(step - recipe.warmup) / (recipe.steps - recipe.warmup)))))"
)


def test_the_training_recipe_every_kit_carries_does_not_answer_train_gpt(tmp_path):
    # chapters 03-08 train with the library's train_lm, so every kit carries its optimizer and its
    # schedule: a warm-up then a straight line, not the cosine chapter 08 asks students to derive.
    # Assembled into the loop the exercise spells out, they earn nothing, named by the slip.
    library = kit_library(stage_before("train_gpt"), tmp_path)
    training = "import math\nimport torch\n" + (library / "training.py").read_text()
    exercise = get_exercise("train_gpt")
    copied = check_source(
        exercise, [training, ASSEMBLED.replace("RATE", "learning_rate_at(step, recipe)")], seed=0
    )
    assert copied.points > 0 and copied.earned == 0
    assert "falls in a straight line" in " ".join(r.hint for r in copied.results)
    derived = check_source(exercise, [training, ASSEMBLED.replace("RATE", COSINE)], seed=0)
    assert derived.earned == derived.points  # the same loop with the derived schedule: the answer


def test_the_stage_follows_the_course_deadlines(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text(
        "DEADLINES = {'01_bigram_counting': '2026-12-08T23:59:00+01:00', "
        "'02_neural_bigram': '2026-12-15T23:59:00Z'}\n"
    )
    moment = dt.datetime(2026, 12, 10, tzinfo=dt.UTC)
    assert stages.released(tmp_path, now=moment) == ["01_bigram_counting"]
    assert stages.released(tmp_path, now=moment - dt.timedelta(days=5)) == []
    assert stages.released(tmp_path, "03_mlp_lm", now=moment) == chapters()[:3]
    assert stages.released(None) == []
    with pytest.raises(ValueError, match="ANSWERS_THROUGH='3': expected one of the chapters"):
        stages.released(tmp_path, "3")


def test_the_command_line_names_a_stage_it_does_not_know(tmp_path, capsys):
    from autograder.kit.build import main

    with pytest.raises(SystemExit, match=r"ANSWERS_THROUGH='3': expected one of the chapters"):
        main([str(tmp_path / "kit"), "--answers-through", "3"])
    assert not (tmp_path / "kit").exists()


def test_what_needs_pytorch_is_found_through_the_calls():
    # a NumPy exercise's answer written with PyTorch cannot run in its sandbox (no PyTorch there);
    # the rule follows calls inside the library, and everything else not yet due is held back
    assert stages.uses_torch("windows:padded_windows")  # through _sliding_windows
    assert stages.uses_torch("metrics:bigram_mean_nll")  # through _mean_negative_log
    assert stages.uses_torch("nplm:nplm_logits")  # through _tensor_forward
    assert stages.uses_torch("gpt2:get_batch")  # a module that imports PyTorch at the top
    assert stages.uses_torch("bpe:bpe_train")  # its import of PyTorch is inside the function
    assert not stages.uses_torch("vocab:build_vocab")
    assert not stages.uses_torch("training:learning_rate_at")
    assert not stages.runs_where_graded("bpe:bpe_train", "bpe_train")
    assert not stages.runs_where_graded("ngram:add_k_probs", "bigram_probs")
    assert stages.runs_where_graded("gpt2:GPT", "GPT")
    assert not stages.runs_where_graded("gpt:TinyGPT", "GPT")  # REFUSED_ATTENTION


def test_the_library_gpt_refuses_to_run_while_attention_is_graded(tmp_path):
    # REFUSED_ATTENTION: chapter 07's GPT, pasted, cannot answer chapter 08's attention exercises
    source = (REPO / "proof_lm" / "gpt.py").read_text()
    attempt = f"exec({source!r})\nmodel = TinyGPT(10, 4, 8, 1, 2)\nprint(model(torch.zeros(1, 4, dtype=torch.long)))"
    done = _run_guarded(attempt, tmp_path)
    assert done.returncode != 0 and done.stdout == "", done.stdout
    assert "AnswerKeyError" in done.stderr or "finished attention" in done.stderr, done.stderr[
        -800:
    ]
