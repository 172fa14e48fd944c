"""What the grading sandbox of one exercise may import: no implementation of that exercise, anywhere.

The sandbox sees two project packages, both built here as read-only copies: `autograder` holding
only the package `autograder.inside`, whole (the grading process, its probes, the kernel's boot: no
checks, no references, no exercise list), and `proof_lm` with
every function that answers the exercise being graded cut out of its source and replaced by one
that raises `AnswerKeyError`. The real files are not mounted, so no import trick can reach them. The other
exercises' library functions stay usable, as does everything else in the library.

The rule (README, "Answer keys"): while an exercise is graded, an entry point the environment ships
is refused when one call of it on the exercise's own arguments (arrays as tensors for PyTorch), or
on them as the contract's one-line formula combines them (softmax of logits / τ, a log-softmax
picked at the targets), gives the exercise's answer or a part of it; and, in an exercise that asks
for a gradient, automatic differentiation. Calculators stay free (exp, log, max, sum, matmul,
einsum, `torch.logsumexp`: a reduction, not the normalisation), and so do other exercises'
operations (a later exercise may call an earlier one, as it may call its own solution of it).
`tests/test_answer_keys.py` derives what the rule blocks by calling every public function and class
of the library, the grader's mounted modules and PyTorch's candidates on each exercise's check
inputs, and fails when one that reproduces an answer is missing from the tables below. PyTorch is
refused inside the grading process (`autograder.inside.answer_guard`), not in a copy.
"""

import ast
import atexit
import functools
import shutil
import tempfile
import threading
from pathlib import Path

from autograder.notebook import PARSING
from autograder.wall.paths import INSIDE, REPO

BUILDING = threading.Lock()  # grading threads may ask for the same copy at once

# Library functions and classes that implement (all or the heart of) each graded exercise,
# "module:name" (a top-level def, class or assignment of proof_lm/module.py).
LIBRARY_ANSWERS: dict[str, tuple[str, ...]] = {
    "bigram_counts": ("ngram:bigram_count_table", "ngram:ngram_counts"),
    "bigram_probs": ("ngram:add_k_probs",),
    "mean_nll": ("metrics:bigram_mean_nll", "metrics:ngram_mean_nll"),
    "perplexity": ("metrics:perplexity_from_nll",),
    "softmax": ("functional:softmax", "functional:log_softmax", "sampling:filter_probs"),
    "cross_entropy": ("functional:cross_entropy", "functional:log_softmax"),
    "bigram_loss_and_grad": ("table_fit:table_loss_and_grad", "functional:cross_entropy_grad"),
    "context_windows": (
        "windows:_sliding_windows",
        "windows:padded_windows",
        "windows:encode_stream",
        "windows:name_windows",
        "windows:make_context_dataset",
    ),
    "nplm_params": ("nplm:init_nplm", "baselines:TorchContextMLP"),
    "nplm_loss": (
        "nplm:nplm_logits",
        "nplm:nplm_mean_loss",
        "nplm:nplm_loss_and_grads",
        "baselines:TorchContextMLP",
    ),
    "numerical_gradient": ("gradcheck:central_difference",),
    "linear_loss_and_grad": ("functional:cross_entropy_grad",),
    "nplm_grads": ("nplm:nplm_loss_and_grads", "baselines:TorchContextMLP"),
    "temperature_probs": ("sampling:filter_probs", "functional:softmax", "functional:log_softmax"),
    "top_k_probs": ("sampling:filter_probs",),
    "top_p_probs": ("sampling:filter_probs",),
    "sample_next": ("sampling:filter_probs", "sampling:draw"),
    "multi_head_attention": ("gpt:CausalSelfAttention", "gpt2:CausalSelfAttention"),
    "min_p_probs": ("sampling:filter_probs",),
    "gpt_params": ("gpt:gpt_param_count", "gpt:TinyGPT"),
    "bpe_train": ("bpe:bpe_train", "bpe:_merge_pair"),
    "bpe_encode": ("bpe:bpe_encode", "bpe:_merge_pair"),
    "bpe_decode": ("bpe:bpe_decode", "bpe:token_bytes"),
    "get_batch": ("gpt2:get_batch",),
    "CausalSelfAttention": ("gpt2:CausalSelfAttention", "gpt:CausalSelfAttention"),
    "Block": ("gpt2:Block", "gpt:Block"),
    "GPT": ("gpt2:GPT", "gpt:TinyGPT"),
    "generate": ("gpt2:generate",),
}

# PyTorch's entry points of each operation, at every level a reload would fetch them from again.
SOFTMAX = (
    "torch.softmax",
    "torch.log_softmax",
    "torch._softmax",
    "torch._log_softmax",
    "torch._safe_softmax",
    "torch.Tensor.softmax",
    "torch.Tensor.log_softmax",
    "torch.nn.functional.softmax",
    "torch.nn.functional.log_softmax",
    "torch.nn.functional.softmin",
    "torch.special.softmax",
    "torch.special.log_softmax",
    "torch._C._special.special_softmax",
    "torch._C._special.special_log_softmax",
    "torch.ops.aten.softmax",
    "torch.ops.aten._softmax",
    "torch.ops.aten.log_softmax",
    "torch.ops.aten._log_softmax",
    "torch.ops.aten._safe_softmax",
)
LOG_SOFTMAX = tuple(name for name in SOFTMAX if "log_softmax" in name)
CROSS_ENTROPY = (
    *LOG_SOFTMAX,
    "torch.nn.functional.cross_entropy",
    "torch.nn.functional.nll_loss",
    "torch._C._nn.cross_entropy_loss",
    "torch._C._nn.nll_loss",
    "torch._C._nn.nll_loss_nd",
    "torch.ops.aten.cross_entropy_loss",
    "torch.ops.aten.nll_loss",
    "torch.ops.aten.nll_loss_nd",
)
AUTOGRAD = (
    "autograd",
)  # see autograder.inside.answer_guard: the backward engine and forward-mode AD
BATCH_NORM = (
    "torch.nn.functional.batch_norm",
    "torch.nn.functional.instance_norm",
    "torch.batch_norm",
    "torch.instance_norm",
    "torch.native_batch_norm",
    "torch._native_batch_norm_legit",
    "torch.ops.aten.batch_norm",
    "torch.ops.aten.native_batch_norm",
    "torch.ops.aten.native_batch_norm_backward",
    "torch.ops.aten._native_batch_norm_legit",
)
LAYER_NORM = (
    "torch.nn.functional.layer_norm",
    "torch.nn.functional.group_norm",
    "torch.layer_norm",
    "torch.group_norm",
    "torch.native_layer_norm",
    "torch.native_group_norm",
    "torch.ops.aten.layer_norm",
    "torch.ops.aten.native_layer_norm",
    "torch.ops.aten.native_layer_norm_backward",
)
ATTENTION = (
    "torch.nn.functional.scaled_dot_product_attention",
    "torch._C._nn.scaled_dot_product_attention",
    "torch._scaled_dot_product_attention_math",
    "torch.ops.aten.scaled_dot_product_attention",
    "torch.ops.aten._scaled_dot_product_attention_math",
)
TORCH_ANSWERS: dict[str, tuple[str, ...]] = {
    "softmax": SOFTMAX,
    "cross_entropy": CROSS_ENTROPY,
    "bigram_loss_and_grad": AUTOGRAD,
    "linear_loss_and_grad": AUTOGRAD,
    "nplm_grads": AUTOGRAD,
    "temperature_probs": SOFTMAX,
    "sgd_train": ("torch.optim.SGD", "torch.optim.sgd.SGD", "torch.optim.sgd.sgd"),
    "adam_step": (
        "torch.optim.Adam",
        "torch.optim.AdamW",
        "torch.optim.adam.Adam",
        "torch.optim.adam.adam",
        "torch.optim.adamw.AdamW",
        "torch._fused_adam_",
        "torch._fused_adamw_",
    ),
    "label_smoothing_loss_and_grad": (*CROSS_ENTROPY, *AUTOGRAD),
    "nplm_direct_grads": AUTOGRAD,
    "causal_attention_backward": (*ATTENTION, *AUTOGRAD),
    "batchnorm_forward": BATCH_NORM,
    "batchnorm_backward": (*BATCH_NORM, *AUTOGRAD),
    "causal_attention": ATTENTION,
    "multi_head_attention": (
        *ATTENTION,
        "torch.nn.functional.multi_head_attention_forward",
        "torch._native_multi_head_attention",
    ),
    "layer_norm": LAYER_NORM,
    "layer_norm_backward": (*LAYER_NORM, *AUTOGRAD),
    "CausalSelfAttention": (
        *ATTENTION,
        "torch.nn.functional.multi_head_attention_forward",
        "torch._native_multi_head_attention",
        "torch.nn.MultiheadAttention",
        "torch.nn.modules.activation.MultiheadAttention",
        "torch.nn.modules.transformer.MultiheadAttention",
        "torch.ops.aten._native_multi_head_attention",
        "torch.ops.aten._scaled_dot_product_flash_attention",
        "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu",
        "torch.ops.aten._scaled_dot_product_efficient_attention",
    ),
}


# The grader's own functions mounted in every grading sandbox that answer an exercise, "module:name"
# (of autograder/inside/module.py): the sgd_train probe's softmax regression is linear_loss_and_grad.
GRADER_ANSWERS: dict[str, tuple[str, ...]] = {
    "linear_loss_and_grad": ("probes:softmax_regression",),
    "bigram_loss_and_grad": ("probes:softmax_regression",),
}


def torch_entries(exercise: str) -> list[str]:
    """The PyTorch entry points the grading process of `exercise` refuses (see autograder.inside.answer_guard)."""
    return list(TORCH_ANSWERS.get(exercise, ()))


STUB = '''

class AnswerKeyError(RuntimeError):
    """Raised by a library (or grader) function that implements the exercise being graded."""


def _answer_key(name, is_class=False):
    def refuse(*args, **kwargs):
        raise AnswerKeyError(
            f"{__name__}.{name} implements the exercise being graded ({EXERCISE}); "
            "the answer-key rule: while an exercise is graded, the environment's own implementations "
            "of it (the library's, the grader's, PyTorch's) refuse to run. Write it yourself"
        )

    if is_class:  # building it (or a subclass, through super().__init__) refuses
        return type(name, (), {"__init__": lambda self, *a, **k: refuse()})
    refuse.__name__ = name
    return refuse

'''


@functools.cache
def _root() -> Path:
    root = Path(tempfile.mkdtemp(prefix="proof-lm-answer-key-"))
    root.chmod(0o755)
    atexit.register(shutil.rmtree, root, True)
    return root


def _copy_tree(source: Path, target: Path) -> None:
    """Copy the modules of package `source` to `target` (made 0755), each 0644."""
    target.mkdir(mode=0o755, parents=True)
    target.chmod(0o755)
    for path in sorted(source.glob("*.py")):
        shutil.copyfile(path, target / path.name)
        (target / path.name).chmod(0o644)


def _sandbox_package(target: Path, exercise: str | None, *also: str) -> Path:
    """At `target`: an `autograder` holding its `__init__`, the modules `also` and `autograder.inside`
    whole, in which what answers `exercise` (GRADER_ANSWERS) raises AnswerKeyError."""
    shutil.rmtree(target, ignore_errors=True)  # what an earlier attempt that failed left
    for folder in (target.parent, target):
        folder.mkdir(mode=0o755, exist_ok=True)
        folder.chmod(0o755)
    shutil.copytree(INSIDE, target / "inside", ignore=shutil.ignore_patterns("__pycache__"))
    for path in (target / "inside", *(target / "inside").rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)
    for name in ("__init__.py", *also):
        shutil.copyfile(REPO / "autograder" / name, target / name)
        (target / name).chmod(0o644)
    _cut(target / "inside", GRADER_ANSWERS.get(exercise, ()), exercise)
    return target


@functools.cache
def grading_package(exercise: str) -> Path:
    """The `autograder` the grading process of `exercise` sees: `autograder.inside`, whole, and
    nothing else (what of it answers `exercise` refuses to run)."""
    return _sandbox_package(_root() / f"grading-{exercise}" / "autograder", exercise)


@functools.cache
def kernel_package() -> Path:
    """The `autograder` a notebook's kernel sees: `autograder.inside`, and `autograder.kernel`, which
    the notebooks' hidden-test cells import (in class grading it only defers to the trusted grader)."""
    return _sandbox_package(_root() / "kernel" / "autograder", None, "kernel.py")


@functools.cache
def library_without(exercise: str) -> Path:
    """A copy of `proof_lm` in which every function or class answering `exercise` raises AnswerKeyError."""
    target = _root() / f"proof_lm-{exercise}"
    shutil.rmtree(target, ignore_errors=True)  # what an earlier attempt that failed left
    _copy_tree(REPO / "proof_lm", target)
    _cut(target, LIBRARY_ANSWERS.get(exercise, ()), exercise)
    return target


def _cut(package: Path, entries: tuple[str, ...], exercise: str | None) -> None:
    """Replace each "module:name" of `entries` in the copied `package` by a refusing stand-in."""
    by_module: dict[str, list[str]] = {}
    for entry in entries:
        module, name = entry.split(":")
        by_module.setdefault(module, []).append(name)
    for module, names in by_module.items():
        path = package / f"{module}.py"
        stub = STUB.replace("{EXERCISE}", str(exercise))
        path.write_text(_without_definitions(path.read_text(), set(names), stub))


def _without_definitions(source: str, names: set[str], stub: str) -> str:
    """`source` with the top-level functions, classes and assignments called `names` cut out
    (decorators included), each replaced where it stood by a refusing stand-in, so that code
    below it (an annotation naming a cut class) still finds the name; `stub` goes before the first."""
    lines = source.splitlines(keepends=True)
    with PARSING:  # CPython 3.11 mis-builds ASTs made in two threads at once (see notebook.PARSING)
        tree = ast.parse(source)
    first = None
    for node in reversed(tree.body):
        cut = sorted(_defines(node) & names)
        if cut:
            decorators = getattr(node, "decorator_list", [])
            start = min([node.lineno, *(d.lineno for d in decorators)]) - 1
            is_class = isinstance(node, ast.ClassDef)
            lines[start : node.end_lineno] = [
                f"{name} = _answer_key({name!r}, {is_class})\n" for name in cut
            ]
            first = start
    if first is not None:
        lines.insert(first, stub)
    return "".join(lines)


def _defines(node: ast.stmt) -> set[str]:
    """The names a top-level statement binds by def, class or plain assignment."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Assign | ast.AnnAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)}
    return set()


def mounts(exercise: str) -> list[tuple[Path, str]]:
    """Read-only binds for grading `exercise`: the two packages above and the data folder."""
    with BUILDING:
        return [
            (grading_package(exercise), str(REPO / "autograder")),
            (library_without(exercise), str(REPO / "proof_lm")),
            (REPO / "data", str(REPO / "data")),
        ]
