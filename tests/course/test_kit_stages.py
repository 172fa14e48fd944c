"""The kit answers no exercise before its deadline: its library, copied whole, earns nothing.

The attack is copying, not calling: every module of the kit's `proof_lm`, at the stage just before
an exercise's chapter is due (the most its library ever holds while that exercise is open), is
pasted as source under another package name, one top-level statement at a time, where the
exercise is graded: for a NumPy exercise with no PyTorch (an import of it gives a module whose every
attribute raises, as in its sandbox). Every top-level function and class, private helpers included,
is then bound to the exercise through the adapters of `support/answer_search.py` on the exercise's own
check inputs: nothing may reproduce the answer. Earlier stages hold back more (what is held back
at a stage is held back at every earlier one), so they are covered.

The translation attack goes further (`support/translation_attack.py`): a NumPy stand-in for the
tensor operations the kit's library calls, registered as `torch`, the library pasted whole after
it, and an adapter per exercise that only converts arguments and results around the routine that
computes it. Over the whole library it answers what it answers (the control); at the stage before
a deadline it must earn nothing.
"""

import __future__

import ast
import builtins
import datetime as dt
import inspect
import io
import re
import shutil
import tokenize
import types
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import REPO
from support import numpy_torch, translation_attack
from support.answer_search import GRADED, _run_guarded, check_inputs, search

from autograder.course.directory import chapters
from autograder.judge.answer_key import LIBRARY_ANSWERS
from autograder.judge.exercises import EXERCISES, get_exercise
from autograder.judge.notebook import cell_source, read_notebook
from autograder.judge.runner import check_source, check_together, environments
from autograder.judge.verdicts import ExerciseReport
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


def released_but(chapter: str) -> list[str]:
    """The most a kit can carry while `chapter` is open: every other chapter's answers (deadlines
    need not follow the chapters' order)."""
    return [other for other in chapters() if other != chapter]


def stage_before(exercise: str) -> list[str]:
    """The most a kit can carry while `exercise` is open (`released_but` its chapter)."""
    return released_but(get_exercise(exercise).chapter)


# Exercises whose checks call them only through probes (a closure to differentiate, a generator to
# draw from, a model to train), as their declarations say: the search has no plain call to make;
# what answers them is covered by LIBRARY_ANSWERS (held back until the deadline). The test below holds each declaration to its checks' calls.
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
    stage = chapters()[:7]
    library = kit_library(stage, tmp_path)
    held = stages.held_back(stage)
    for entry in held:  # every entry not yet due is cut, whatever its language
        module, name = entry.split(":")
        assert f"{name} = _answer_key({name!r}, " in (library / f"{module}.py").read_text(), entry
    candidates = paste(library, torch_available=True)
    with pytest.raises(RuntimeError, match=r"answers .*get_batch \(chapter 08_gpt\)"):
        candidates["gpt2:get_batch"]([1, 2, 3], 2, 1, None)
    everything = kit_library(chapters(), tmp_path / "all")
    assert "_answer_key(" not in "".join(p.read_text() for p in everything.glob("*.py"))


# train_gpt as a student would assemble it from the kit's training module: its optimizer and its
# schedule, around the loop the exercise spells out step by step. With `COSINE` in place of the
# library's rate and `MATRICES` in place of its optimizer it is the answer.
ASSEMBLED = """
def train_gpt(model, data, block_size, recipe, generator, max_grad_norm=1.0):
    optimizer = OPTIMIZER
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
KIT_OPTIMIZER = 'make_optimizer("adamw", model, recipe.learning_rate, recipe.weight_decay)'
MATRICES = (
    "torch.optim.AdamW([{'params': [p for p in model.parameters() if p.dim() >= 2], "
    "'weight_decay': recipe.weight_decay}, {'params': [p for p in model.parameters() "
    "if p.dim() < 2], 'weight_decay': 0.0}])"
)
COSINE = (
    "(learning_rate_at(step, recipe) if step < recipe.warmup else recipe.learning_rate * "
    "(recipe.final_fraction + (1 - recipe.final_fraction) * 0.5 * (1 + math.cos(math.pi * "
    "(step - recipe.warmup) / (recipe.steps - recipe.warmup)))))"
)


def _assembled(optimizer: str, rate: str) -> str:
    return ASSEMBLED.replace("OPTIMIZER", optimizer).replace("RATE", rate)


def test_the_training_recipe_every_kit_carries_does_not_answer_train_gpt(tmp_path):
    # chapters 03-08 train with the library's train_lm, so every kit carries its optimizer and its
    # schedule: a warm-up then a straight line, not the cosine chapter 08 asks students to derive,
    # and weight decay by Hugging Face's convention (names and layer types), not by what a tensor
    # is. Assembled into the loop the exercise spells out, each earns nothing, named by the slip.
    library = kit_library(stage_before("train_gpt"), tmp_path)
    training = "import math\nimport torch\n" + (library / "training.py").read_text()
    exercise = get_exercise("train_gpt")

    def grade(optimizer: str, rate: str) -> tuple[int, int, str]:
        report = check_source(exercise, [training, _assembled(optimizer, rate)], seed=0)
        return report.earned, report.points, " ".join(r.hint for r in report.results)

    earned, points, hints = grade(KIT_OPTIMIZER, "learning_rate_at(step, recipe)")
    assert points > 0 and earned == 0 and "falls in a straight line" in hints
    earned, points, hints = grade(KIT_OPTIMIZER, COSINE)
    assert earned == 0 and "a tensor of one number per feature outside any normalisation" in hints
    earned, points, hints = grade(MATRICES, "learning_rate_at(step, recipe)")
    assert earned == 0 and "falls in a straight line" in hints
    earned, points, _ = grade(MATRICES, COSINE)
    assert earned == points  # the decay by what a tensor is, and the derived schedule: the answer


# Chapter 08's Block asks where its two norms go ("where to is yours to find"): these words name
# the answer. The kit's TinyGPT builds its blocks with PyTorch's `norm_first=True`, in its code;
# no text the kit carries before the deadline (notebooks, README, docs, docstrings, comments) says it.
NORM_PLACEMENT = re.compile(r"\bpre-?(norm|LN\b|layer[- ]?norm)", re.IGNORECASE)


def _library_text(library: Path) -> list[tuple[str, str]]:
    """(where, text) of every docstring and comment of the library's modules."""
    texts = []
    for path in sorted(library.glob("*.py")):
        source = path.read_text()
        for node in ast.walk(ast.parse(source)):
            documented = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
            if isinstance(node, documented) and (doc := ast.get_docstring(node)):
                texts.append((f"{path.name}:{getattr(node, 'lineno', 1)}", doc))
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                texts.append((f"{path.name}:{token.start[0]}", token.string))
    return texts


def test_no_text_of_the_kit_names_where_a_block_puts_its_norms_before_the_deadline(kit, tmp_path):
    texts = _library_text(kit_library(stage_before("Block"), tmp_path))
    for path in sorted((kit / "notebooks").glob("*.ipynb")):
        cells = read_notebook(path).cells
        texts += [(f"{path.name} cell {i}", cell_source(cell)) for i, cell in enumerate(cells)]
    for path in [kit / "README.md", *sorted((kit / "docs").glob("*.md"))]:
        texts.append((path.name, path.read_text()))
    assert any("Block" in text for _, text in texts)  # chapter 08's text is among them
    named = [where for where, text in texts if NORM_PLACEMENT.search(text)]
    assert named == [], f"the kit's text names where Block's norms go: {named}"


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


def test_what_is_held_back_is_decided_by_content_with_two_stated_exemptions():
    # PyTorch code answers a NumPy exercise one translation away: held back like any other
    held = stages.held_back([])
    for entry in (
        "ngram:add_k_probs",
        "metrics:ppl",
        "windows:name_windows",
        "gradcheck:finite_differences",
        "sampling:filter_probs",  # the nucleus cut, the order temperature -> top-k -> top-p
        "sampling:draw",  # one uniform draw per row
        "bpe:bpe_train",  # the tie rule
        "bpe:_replace",  # overlap and runs of (a, a)
    ):
        assert entry in held, entry
    # the two exemptions, and nothing else: a model class for a parameter count, proof_lm.baselines
    exempted = {
        (entry, exercise)
        for exercise, entries in LIBRARY_ANSWERS.items()
        for entry in entries
        if stages.exempt(entry, exercise)
    }
    assert ("baselines:TorchContextMLP", "nplm_params") in exempted
    assert not stages.exempt("nplm:init_nplm", "nplm_params")  # a function, not a model
    for entry, exercise in exempted:
        assert entry.startswith("baselines:") or exercise in stages.PARAMETER_COUNTS, entry


def test_the_library_gpt_refuses_to_run_while_attention_is_graded(tmp_path):
    # chapter 07's GPT, pasted, cannot run where chapter 08's attention exercises are graded
    source = (REPO / "proof_lm" / "gpt.py").read_text()
    attempt = f"exec({source!r})\nmodel = TinyGPT(10, 4, 8, 1, 2)\nprint(model(torch.zeros(1, 4, dtype=torch.long)))"
    done = _run_guarded(attempt, tmp_path)
    assert done.returncode != 0 and done.stdout == "", done.stdout
    assert "AnswerKeyError" in done.stderr or "finished attention" in done.stderr, done.stderr[
        -800:
    ]


# The translation attack (support/translation_attack.py): the kit's library pasted whole after a
# NumPy stand-in for PyTorch, each exercise bound by a thin adapter to the routine that computes it.
RNG = np.random.default_rng(0)
A = RNG.normal(size=(3, 5))
A3 = RNG.normal(size=(2, 3, 4))
IDS = RNG.integers(0, 4, size=12)
MASK = RNG.random((3, 5)) > 0.5
ORDER = np.argsort(RNG.random((3, 5)), axis=-1)


class _Model:
    """A module of each container kind, for the names of its parameters."""

    @staticmethod
    def of(t) -> object:
        class Model(t.nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = t.nn.ModuleList(
                    t.nn.Sequential(t.nn.Linear(4, 8), t.nn.GELU(), t.nn.Linear(8, 4, bias=False))
                    for _ in range(2)
                )
                self.norm = t.nn.LayerNorm(4)
                self.token = t.nn.Embedding(5, 4)

        return Model()


def _x(t, array=A):
    return t.as_tensor(np.array(array, copy=True))


def _parameters(t, model) -> list:
    return [(name, tuple(p.shape), p.dim(), int(p.numel())) for name, p in model.named_parameters()]


# Each operation the stand-in implements, called on random inputs; the same call on PyTorch must
# give the same values, shapes and dtypes (random initialisers: the same shapes and spread).
def _inside_no_grad(t: object) -> object:
    """A sum computed inside `with t.no_grad():`, left as it was entered (gradients on again)."""
    with t.no_grad():
        return _x(t).sum()


CASES = {
    "Tensor": lambda t: (isinstance(_x(t), t.Tensor), isinstance(A, t.Tensor)),
    "Generator": lambda t: isinstance(np.random.default_rng(0), t.Generator),
    "Tensor.T": lambda t: _x(t).T,
    "Tensor.all": lambda t: (bool((_x(t, IDS) >= 0).all()), bool((_x(t, IDS) > 0).all())),
    "Tensor.copy_": lambda t: t.zeros(3, 5, dtype=t.float64).copy_(_x(t)),
    "Tensor.cpu": lambda t: _x(t).cpu(),
    "Tensor.double": lambda t: _x(t, IDS).double(),
    "Tensor.dtype": lambda t: (_x(t).dtype, _x(t, IDS).dtype, _x(t, MASK).dtype),
    "Tensor.any": lambda t: (bool((_x(t, IDS) > 2).any()), bool((_x(t, IDS) > 5).any())),
    "Tensor.clamp": lambda t: (_x(t, IDS - 2).clamp(min=0), _x(t).clamp(max=0.1)),
    "Tensor.clone": lambda t: _x(t).clone(),
    "Tensor.contiguous": lambda t: _x(t)[:, ::2].contiguous(),
    "Tensor.cumsum": lambda t: (_x(t).cumsum(dim=-1), _x(t, IDS).cumsum(0)),
    "Tensor.detach": lambda t: _x(t).detach(),
    "Tensor.device": lambda t: str(_x(t).device),
    "Tensor.dim": lambda t: (_x(t).dim(), _x(t, A3).dim()),
    "Tensor.exp": lambda t: _x(t).exp(),
    "Tensor.flatten": lambda t: (_x(t, A3).flatten(1), _x(t, A3).flatten(2), _x(t, A3).flatten()),
    "Tensor.item": lambda t: (_x(t).sum().item(), _x(t, IDS).max().item()),
    "Tensor.log": lambda t: _x(t, np.abs(A) * MASK).log(),
    "Tensor.long": lambda t: _x(t, IDS.astype(np.uint8)).long(),
    "Tensor.masked_fill": lambda t: _x(t).masked_fill(_x(t, MASK), float("-inf")),
    "Tensor.max": lambda t: (_x(t).max(), _x(t, IDS).max()),
    "Tensor.mean": lambda t: (_x(t).mean(), -_x(t).log().mean()),
    "Tensor.ndim": lambda t: _x(t, A3).ndim,
    "Tensor.new_zeros": lambda t: _x(t, MASK).new_zeros(1),
    "Tensor.numel": lambda t: (_x(t, A3).numel(), _x(t, IDS[:0]).numel()),
    "Tensor.float": lambda t: _x(t).float(),
    "Tensor.numpy": lambda t: _x(t).numpy(),
    "Tensor.reshape": lambda t: (_x(t).reshape(-1, 3), _x(t).reshape((5, 3))),
    "Tensor.scatter": lambda t: t.zeros_like(_x(t)).scatter(-1, _x(t, ORDER), _x(t)),
    "Tensor.shape": lambda t: tuple(_x(t, A3).shape),
    "Tensor.softmax": lambda t: _x(t).masked_fill(_x(t, MASK), float("-inf")).softmax(dim=-1),
    "Tensor.split": lambda t: _x(t, A3).split(3, dim=2),
    "Tensor.sum": lambda t: (_x(t).sum(dim=-1, keepdim=True), _x(t).sum(dim=1), _x(t, IDS).sum()),
    "Tensor.to": lambda t: (_x(t, IDS) == 3).to(t.uint8),
    "Tensor.tolist": lambda t: (_x(t, IDS).tolist(), _x(t).tolist()),
    "Tensor.transpose": lambda t: (_x(t, A3).transpose(1, 2), _x(t, A3).transpose(-2, -1)),
    "Tensor.triu": lambda t: t.ones(4, 4, dtype=t.bool).triu(1),
    "Tensor.values": lambda t: t.cummax(_x(t, IDS), dim=0).values,
    "Tensor.view": lambda t: _x(t, A3).view(2, 3, 2, 2),
    "arange": lambda t: (t.arange(5), t.arange(3, device=_x(t).device)),
    "argmax": lambda t: t.argmax((_x(t, IDS) == 3).to(t.uint8)),
    "as_tensor": lambda t: (
        t.as_tensor(A, dtype=t.float64),
        t.as_tensor(IDS, dtype=t.int64),
        t.as_tensor(MASK),
        t.as_tensor([1, 2]),
    ),
    "bincount": lambda t: t.bincount(_x(t, IDS), minlength=10),
    "bool": lambda t: t.ones(2, dtype=t.bool),
    "cat": lambda t: t.cat([_x(t, MASK[0]).new_zeros(1), _x(t, MASK[0])]),
    "cummax": lambda t: tuple(t.cummax(_x(t, IDS), dim=0)),
    "cumsum": lambda t: t.cumsum(_x(t, IDS), 0),
    "float64": lambda t: t.zeros(2, dtype=t.float64),
    "from_numpy": lambda t: t.from_numpy(np.array(A3)),
    "frombuffer": lambda t: t.frombuffer(bytearray("héllo".encode()), dtype=t.uint8).long(),
    "full": lambda t: (t.full((2, 3), -100, dtype=t.int64), t.full((2,), 0.5), t.full((2,), 7)),
    "topk": lambda t: tuple(t.topk(_x(t), 2)),
    "full_like": lambda t: t.full_like(_x(t), 0.25),
    "int64": lambda t: t.zeros(0, dtype=t.int64),
    "log_softmax": lambda t: t.log_softmax(_x(t), dim=1),
    "nn.Embedding": lambda t: (
        _parameters(t, t.nn.Embedding(5, 3)),
        t.nn.Embedding(5, 3)(_x(t, IDS)).shape,
    ),
    "nn.GELU": lambda t: (_parameters(t, t.nn.GELU()), isinstance(t.nn.GELU(), t.nn.Module)),
    "nn.LayerNorm": lambda t: [p.tolist() for p in t.nn.LayerNorm(3).parameters()],
    "nn.Linear": lambda t: (
        _parameters(t, t.nn.Linear(5, 2)),
        _parameters(t, t.nn.Linear(5, 2, bias=False)),
        t.nn.Linear(5, 2)(_x(t).float()).shape,
    ),
    "nn.Module": lambda t: _parameters(t, _Model.of(t)),
    "nn.ModuleList": lambda t: [_parameters(t, m) for m in _Model.of(t).blocks],
    "nn.Parameter": lambda t: t.nn.Parameter(t.ones(2, 3)),
    "nn.functional.softmax": lambda t: t.nn.functional.softmax(_x(t), dim=0),
    "nn.Sequential": lambda t: _parameters(t, t.nn.Sequential(t.nn.Linear(2, 3), t.nn.GELU())),
    "nn.functional.cross_entropy": lambda t: t.nn.functional.cross_entropy(
        _x(t) * 30, _x(t, IDS[:3])
    ),
    "nn.init.normal_": lambda t: [
        (p.dtype, tuple(p.shape), round(float(p.detach().std()) * 1000))
        for p in (t.nn.init.normal_(t.nn.Linear(300, 400).weight, std=0.02),)
    ],
    "nn.init.kaiming_normal_": lambda t: [
        (p.dtype, tuple(p.shape), round(float(p.detach().std()) * 1000))
        for p in (t.nn.init.kaiming_normal_(t.nn.Linear(300, 400).weight, nonlinearity="tanh"),)
    ],
    "nn.init.zeros_": lambda t: t.nn.init.zeros_(t.nn.Linear(3, 4).weight).tolist(),
    "no_grad": lambda t: (t.no_grad()(lambda x: x * 2)(_x(t)), _inside_no_grad(t)),
    "ones": lambda t: (t.ones(2, 3), t.ones(3, 3, dtype=t.bool, device=_x(t).device)),
    "ones_like": lambda t: (t.ones_like(_x(t), dtype=t.bool), t.ones_like(_x(t, IDS))),
    "repeat_interleave": lambda t: t.repeat_interleave(_x(t, IDS), _x(t, IDS[::-1])),
    "softmax": lambda t: t.softmax(_x(t) / 0.7, dim=-1),
    "sort": lambda t: tuple(t.sort(_x(t, IDS * 0.5), dim=-1, descending=True, stable=True)),
    "tanh": lambda t: t.tanh(_x(t)),
    "tensor": lambda t: (
        t.tensor(1.5),
        t.tensor(2.5, dtype=t.float64),
        t.tensor([[1, 2], [3, 4]], dtype=t.int64).reshape(-1, 2),
        t.tensor([], dtype=t.int64),
        t.tensor(A),
        t.tensor([3]),
    ),
    "uint8": lambda t: t.zeros(2, dtype=t.uint8),
    "where": lambda t: (
        t.where(_x(t, MASK), _x(t), 0.0),
        t.where(_x(t, IDS) > 1, _x(t, IDS), 0),
        t.where(_x(t, MASK), _x(t) / 2, t.full_like(_x(t), 0.5)),
    ),
    "zeros": lambda t: (t.zeros(3, dtype=t.float64), t.zeros((2, 2), dtype=t.int64), t.zeros(2)),
    "zeros_like": lambda t: t.zeros_like(_x(t)),
}

# What the library's answering code names but the stand-in does not implement, and why.
AUTOGRAD = (
    "autograd: the derivative is computed by PyTorch's code, not written in the kit's, so no "
    "translation of the kit carries it (nplm_grads, bigram_loss_and_grad)"
)
NOT_NEEDED = {
    "Tensor.backward": AUTOGRAD,
    "Tensor.grad": AUTOGRAD,
    "Tensor.requires_grad_": AUTOGRAD,
    "Tensor.retain_grad": AUTOGRAD,
    "autograd.grad": AUTOGRAD,
    "nn.utils.clip_grad_norm_": AUTOGRAD,
    "optim.AdamW": AUTOGRAD,
    "optim.Optimizer": AUTOGRAD,
    "optim.SGD": AUTOGRAD,
    "autograd.gradcheck.get_numerical_jacobian": (
        "PyTorch's own finite differences (gradcheck.finite_differences): PyTorch's text, not the kit's"
    ),
    "multinomial": "draws with a torch.Generator; a NumPy exercise's checks pass NumPy generators",
    "randint": "draws with a torch.Generator; a NumPy exercise's checks pass NumPy generators",
    "nn.functional.scaled_dot_product_attention": (
        "PyTorch's finished attention (TinyGPT.forward, gpt2's): its text is PyTorch's; what the "
        "kit writes of attention, CausalSelfAttention.weights, the stand-in runs"
    ),
    "nn.Dropout": "only in gpt2's CausalSelfAttention, whose forward is scaled_dot_product_attention",
    "nn.MultiheadAttention": "TinyGPT's layers are PyTorch's finished ones: a stand-in for them would "
    "be the answer itself, not a translation of the kit",
    "nn.TransformerEncoderLayer": "TinyGPT's layers are PyTorch's finished ones: a stand-in for "
    "them would be the answer itself, not a translation of the kit",
    "nn.Transformer.generate_square_subsequent_mask": "TinyGPT's causal mask for PyTorch's finished "
    "layers, which the stand-in does not stand in for",
    "Tensor.is_complex": "a torch.dtype's attribute, in baselines._check_ids (the stated exemption)",
    "Tensor.is_floating_point": "a torch.dtype's attribute, in baselines._check_ids (the stated exemption)",
    "Tensor.type": "a torch.device's .type (training's clocks); the stand-in's device is 'cpu'",
    "Tensor.add": "set.add in bpe.bpe_encode, not a tensor's",
    "Tensor.index": "list.index on a vocabulary (itos.index), not a tensor's",
    "Tensor.norm": "TinyGPT's final LayerNorm, self.norm, not a tensor's",
    "Tensor.size": "NumPy arrays' .size (vocab.encode_text, windows, metrics): an int there",
}


def _plain(value: object) -> object:
    """A result of either library as comparable Python: arrays as (dtype name, shape, values)."""
    if isinstance(value, torch.Tensor):
        value = value.detach().numpy()
    if isinstance(value, torch.dtype):
        return str(value).removeprefix("torch.")
    if isinstance(value, np.ndarray):
        return ["array", value.dtype.name, list(value.shape), _plain(np.asarray(value).tolist())]
    if isinstance(value, np.dtype):
        return value.name
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def test_the_stand_in_implements_every_tensor_operation_the_kit_calls():
    # listed from the kit's source (support.translation_attack.operations): every function and
    # class of the library, so that a missing operation cannot pass for a withheld answer
    tensor_attributes = frozenset(n for n in dir(torch.Tensor) if not n.startswith("_"))
    called = translation_attack.operations(
        translation_attack.library_definitions(), tensor_attributes
    )
    missing = {op: sorted(by) for op, by in called.items() if op not in CASES | NOT_NEEDED}
    assert not missing, (
        f"operations the kit calls that the stand-in neither implements nor excuses: {missing}"
    )
    stale = sorted(set(NOT_NEEDED) - set(called))
    assert not stale, f"excused operations the kit no longer calls: {stale}"


def _same(ours: object, theirs: object) -> bool:
    """Equal structure, dtypes and shapes; floats equal to rounding (infinities and NaNs in place)."""
    if isinstance(theirs, list):
        return (
            isinstance(ours, list)
            and len(ours) == len(theirs)
            and all(_same(a, b) for a, b in zip(ours, theirs, strict=True))
        )
    if isinstance(theirs, float) and isinstance(ours, float):
        return bool(np.isclose(ours, theirs, rtol=1e-6, atol=1e-9, equal_nan=True))
    return type(ours) is type(theirs) and ours == theirs


def _implemented(module: types.ModuleType) -> set[str]:
    """What the stand-in implements, named as its operations are: "Tensor.x", "nn.x", "x"."""
    spaces = {"nn.": module.nn, "nn.functional.": module.nn.functional, "nn.init.": module.nn.init}
    names = {f"Tensor.{n}" for n in vars(module.Tensor) if not n.startswith("_")}
    for prefix, space in spaces.items():
        names |= {
            prefix + n
            for n, v in vars(space).items()
            if not n.startswith("_") and not isinstance(v, types.ModuleType)
        }
    exported = {id(v) for space in spaces.values() for v in vars(space).values()}
    return names | {
        n
        for n, v in vars(module).items()
        if not n.startswith("_")
        and (inspect.isfunction(v) or inspect.isclass(v))
        and v.__module__ == module.__name__
        and id(v) not in exported
    }


def test_every_operation_of_the_stand_in_computes_what_pytorch_computes():
    # imported under its own name the stand-in registers nothing: PyTorch stays PyTorch here
    unchecked = sorted(_implemented(numpy_torch) - set(CASES))
    assert not unchecked, f"operations of the stand-in no case checks against PyTorch: {unchecked}"
    wrong = {}
    for operation, case in CASES.items():
        np.random.seed(0)
        torch.manual_seed(0)
        ours, theirs = _plain(case(numpy_torch)), _plain(case(torch))
        if not _same(ours, theirs):
            wrong[operation] = (ours, theirs)
    assert not wrong, "\n".join(
        f"{op}: stand-in {a!r}\nPyTorch {b!r}" for op, (a, b) in wrong.items()
    )


def _graded(stage_of: Callable[[str], list[str]], folder: Path) -> dict[str, ExerciseReport]:
    """Every attacked exercise graded in the real sandbox against the attack on the kit of
    `stage_of(its chapter)`: one grading process per chapter and environment."""
    by_chapter: dict[str, list] = {}
    for name in translation_attack.ATTACKED:
        by_chapter.setdefault(EXERCISES[name].chapter, []).append(get_exercise(name))
    reports, libraries = {}, {}
    for chapter, exercises in sorted(by_chapter.items()):
        stage = tuple(stage_of(chapter))
        if stage not in libraries:
            libraries[stage] = kit_library(list(stage), folder / f"stage{len(libraries)}")
        for group in environments(exercises):
            sources = translation_attack.submission(libraries[stage])
            reports |= {r.exercise: r for r in check_together(group, sources, seed=0)}
    return reports


def _table(reports: dict[str, ExerciseReport]) -> str:
    """exercise -> points earned -> the library entry its adapter called, one line each."""
    return "\n".join(
        f"  {name}: {r.earned}/{r.points} through proof_lm.{translation_attack.CALLED[name]}"
        + (
            ""
            if r.earned
            else f" ({(r.notes or [x.hint for x in r.results if not x.passed] or [''])[0][:90]})"
        )
        for name, r in sorted(reports.items())
    )


# What the attack earns over the library with nothing held back (measured): the NumPy chapters'
# routines the kit writes itself. The parameter counts are graded on options no library model
# builds (a tied output, attention biases), and the kit's attention is PyTorch's finished layers.
CONTROL = {
    "bigram_counts", "bigram_probs", "mean_nll", "perplexity", "context_windows", "nplm_loss",
    "temperature_probs", "top_k_probs", "top_p_probs", "sample_next", "bpe_train",
    "bpe_train_fast", "bpe_encode", "bpe_decode", "min_p_probs",
}  # fmt: skip


def test_the_translation_attack_answers_what_the_whole_library_answers(tmp_path):
    # the control: the same stand-in and adapters over the kit with every chapter released earn
    # full marks, so that the attack's zero below is the kit's holding back, not the tool failing
    reports = _graded(lambda chapter: chapters(), tmp_path)
    earning = {name for name, report in reports.items() if report.earned == report.points}
    points = sum(reports[name].earned for name in earning)
    assert earning == CONTROL, (
        f"the attack on the whole library earns {len(earning)} exercises, {points} points:\n"
        + _table(reports)
    )


def _carried(library: Path) -> set[str]:
    """Every function, class and method of a kit's library, as its module and source."""
    return {
        f"{path.stem}: {ast.unparse(node)}"
        for path in library.glob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef | ast.ClassDef)
    }


def test_what_a_kit_holds_back_only_shrinks_as_chapters_are_released(tmp_path):
    # the kits themselves, built: releasing more chapters never holds back a definition (class or
    # method) that a kit releasing fewer carries, so the stage just before an exercise's deadline
    # holds back the least while it is open: the attack's strongest case covers every other stage
    order = chapters()
    kits = [order[:i] for i in range(len(order) + 1)] + [released_but(c) for c in order]
    whole = _carried(REPO / "proof_lm")
    held = [whole - _carried(kit_library(kit, tmp_path / str(i))) for i, kit in enumerate(kits)]
    assert held[0] and not held[len(order)]  # the kit before any deadline holds back something
    for smaller, held_smaller in zip(kits, held, strict=True):
        for larger, held_larger in zip(kits, held, strict=True):
            if set(smaller) <= set(larger):
                grown = sorted(d.partition("\n")[0] for d in held_larger - held_smaller)
                assert not grown, f"releasing {larger} holds back what {smaller} carries: {grown}"


def test_the_translation_attack_earns_nothing_before_a_deadline(tmp_path):
    """The kit's library at the stage just before each exercise's deadline (every other chapter
    released: what a kit holds back only shrinks as chapters are released, so this is the most
    it ever carries while the exercise is open, and every earlier stage is covered), pasted whole
    after the NumPy stand-in, bound by the adapters and graded for real: no exercise earns a
    point, the issue's two stated exemptions (parameter counts) aside."""
    reports = _graded(released_but, tmp_path)
    earning = {n: r for n, r in reports.items() if r.earned and n not in stages.PARAMETER_COUNTS}
    earned = sorted(earning)
    assert not earned, (
        f"before their deadline {len(earning)} exercises earn "
        f"{sum(r.earned for r in earning.values())} points from the kit:\n" + _table(reports)
    )
