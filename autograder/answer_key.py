"""What the grading sandbox of one exercise may import: no implementation of that exercise, anywhere.

The sandbox sees two project packages, both built here as read-only copies: `autograder` with only
the grading process's own modules (no checks, no references, no exercise list), and `proof_lm` with
every function that answers the exercise being graded cut out of its source and replaced by one
that raises `AnswerKeyError`. The real files are not mounted, so no import trick can reach them. The other
exercises' library functions stay usable, as does everything else in the library.
"""

import ast
import atexit
import functools
import shutil
import tempfile
import threading
from pathlib import Path

from autograder.notebook import PARSING
from autograder.paths import REPO

GRADING_MODULES = ("__init__.py", "child.py", "harness.py", "plain.py", "probes.py")
BUILDING = threading.Lock()  # grading threads may ask for the same copy at once

# Library functions that implement (all or the heart of) each graded exercise.
LIBRARY_ANSWERS: dict[str, tuple[str, ...]] = {
    "bigram_counts": ("ngram:bigram_count_table", "ngram:ngram_counts"),
    "bigram_probs": ("ngram:add_k_probs",),
    "mean_nll": ("metrics:bigram_mean_nll",),
    "perplexity": ("metrics:perplexity_from_nll",),
    "softmax": ("functional:softmax", "functional:log_softmax"),
    "cross_entropy": ("functional:cross_entropy",),
    "bigram_loss_and_grad": ("table_fit:table_loss_and_grad", "functional:cross_entropy_grad"),
    "context_windows": (
        "windows:_sliding_windows",
        "windows:padded_windows",
        "windows:encode_stream",
        "windows:name_windows",
        "windows:make_context_dataset",
    ),
    "nplm_loss": ("nplm:nplm_logits", "nplm:nplm_mean_loss", "nplm:nplm_loss_and_grads"),
    "numerical_gradient": ("gradcheck:central_difference",),
    "linear_loss_and_grad": ("functional:cross_entropy_grad",),
    "nplm_grads": ("nplm:nplm_loss_and_grads",),
    "temperature_probs": ("sampling:filter_probs",),
    "top_k_probs": ("sampling:filter_probs",),
    "top_p_probs": ("sampling:filter_probs",),
    "sample_next": ("sampling:filter_probs", "sampling:draw"),
    "gpt_params": ("gpt:gpt_param_count",),
}

STUB = '''

class AnswerKeyError(RuntimeError):
    """Raised by a library function that implements the exercise being graded."""


def _answer_key(name):
    def refuse(*args, **kwargs):
        raise AnswerKeyError(
            f"proof_lm.{__name__.split('.')[-1]}.{name} implements the exercise being graded ({EXERCISE}); "
            "grading does not let a solution call it: write the function yourself"
        )

    refuse.__name__ = name
    return refuse

'''


@functools.cache
def _root() -> Path:
    root = Path(tempfile.mkdtemp(prefix="proof-lm-answer-key-"))
    root.chmod(0o755)
    atexit.register(shutil.rmtree, root, True)
    return root


def _copy_tree(source: Path, target: Path, keep: tuple[str, ...] | None = None) -> None:
    target.mkdir(mode=0o755, parents=True)
    target.chmod(0o755)
    for path in sorted(source.glob("*.py")):
        if keep is None or path.name in keep:
            shutil.copyfile(path, target / path.name)
            (target / path.name).chmod(0o644)


@functools.cache
def grading_package() -> Path:
    """A copy of `autograder` holding only what the grading process runs."""
    target = _root() / "autograder"
    _copy_tree(REPO / "autograder", target, GRADING_MODULES)
    return target


@functools.cache
def kernel_package() -> Path:
    """A copy of `autograder` holding only what a notebook's kernel imports in class grading."""
    target = _root() / "autograder-kernel"
    _copy_tree(REPO / "autograder", target, ("__init__.py", "kernel.py", "kernel_boot.py"))
    return target


@functools.cache
def library_without(exercise: str) -> Path:
    """A copy of `proof_lm` in which every function answering `exercise` raises AnswerKeyError."""
    target = _root() / f"proof_lm-{exercise}"
    shutil.rmtree(target, ignore_errors=True)  # what an earlier attempt that failed left
    _copy_tree(REPO / "proof_lm", target)
    by_module: dict[str, list[str]] = {}
    for entry in LIBRARY_ANSWERS.get(exercise, ()):
        module, name = entry.split(":")
        by_module.setdefault(module, []).append(name)
    for module, names in by_module.items():
        path = target / f"{module}.py"
        lines = [
            _without_definitions(path.read_text(), set(names)),
            STUB.replace("{EXERCISE}", exercise),
        ]
        lines += [f"{name} = _answer_key({name!r})\n" for name in names]
        path.write_text("".join(lines))
    return target


def _without_definitions(source: str, names: set[str]) -> str:
    """`source` with the top-level functions called `names` cut out (decorators included)."""
    lines = source.splitlines(keepends=True)
    with PARSING:  # CPython 3.11 mis-builds ASTs made in two threads at once (see notebook.PARSING)
        tree = ast.parse(source)
    for node in reversed(tree.body):
        if isinstance(node, ast.FunctionDef) and node.name in names:
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
            del lines[start : node.end_lineno]
    return "".join(lines)


def mounts(exercise: str) -> list[tuple[Path, str]]:
    """Read-only binds for grading `exercise`: the two packages above and the data folder."""
    with BUILDING:
        return [
            (grading_package(), str(REPO / "autograder")),
            (library_without(exercise), str(REPO / "proof_lm")),
            (REPO / "data", str(REPO / "data")),
        ]
