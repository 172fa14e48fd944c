"""What the student kit's library holds at each stage: an exercise's answer only after its deadline.

A stage is the set of chapters whose answers are released: those whose deadline (`DEADLINES` in the
course's nbgrader_config.py) has passed when the kit is built, or, when the instructor says so,
every chapter up to one (`make student-kit ANSWERS_THROUGH=04_gradients`). A library function or
class that answers an exercise of any other chapter is held back: the kit's copy of `proof_lm` has
it replaced where it stood by a stand-in that raises `HeldBack`, saying which exercise it answers.

What answers an exercise is `LIBRARY_ANSWERS`, whose completeness `tests/security/test_answer_keys.py`
proves by search; `tests/course/test_kit_stages.py` attacks the kit at every stage by copying its library's
source, private helpers included, into each exercise not yet due. Two kinds of entry need no
holding back, because a copy of them cannot run where that exercise is graded: PyTorch code, for a
NumPy exercise (its sandbox has no PyTorch), and a model whose attention is PyTorch's
`scaled_dot_product_attention`, for chapter 08's attention exercises (refused while they are graded).
"""

import ast
import datetime as dt
import functools
from pathlib import Path

from autograder.course.deadlines import deadlines
from autograder.course.directory import chapters
from autograder.judge.answer_key import ATTENTION_EXERCISES, LIBRARY_ANSWERS
from autograder.judge.exercises import EXERCISES
from autograder.judge.source_cut import refusing_stub, without_definitions
from autograder.paths import REPO

# Built on F.scaled_dot_product_attention, which chapter 08's attention exercises may not run.
REFUSED_ATTENTION = frozenset({"gpt:CausalSelfAttention", "gpt:Block", "gpt:TinyGPT"})

STUB = refusing_stub(
    "HeldBack",
    "Raised by a library function the kit holds back until its exercise's deadline.",
    'f"{__name__}.{name} answers {ANSWERS}: this kit carries it once that deadline has "\n'
    '            "passed (ask your instructor for the kit of that stage)"',
)


def released(
    course: Path | None, through: str | None = None, now: dt.datetime | None = None
) -> list[str]:
    """The chapters whose answers a kit built now carries: up to `through`, else those past their deadline."""
    order = chapters()
    if through is not None:
        if through not in order:
            raise ValueError(f"ANSWERS_THROUGH={through!r}: expected one of the chapters {order}")
        return order[: order.index(through) + 1]
    if course is None:
        return []
    moment = now or dt.datetime.now(dt.UTC)
    due = deadlines(course)
    return [chapter for chapter in order if chapter in due and due[chapter] <= moment]


TORCH = frozenset({"torch", "functorch", "torchgen"})


@functools.cache
def _module(module: str) -> tuple[dict[str, ast.stmt], dict[str, str], frozenset[str]]:
    """proof_lm/`module`.py read: its top-level definitions, the library names it imports
    ({local name: "module:name"}) and the names its top-level imports bind to PyTorch."""
    tree = ast.parse((REPO / "proof_lm" / f"{module}.py").read_text())
    definitions, library, torch_names = {}, {}, set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            definitions[node.name] = node
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in TORCH:
                    torch_names.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            root, _, rest = node.module.partition(".")
            for alias in node.names:
                if root in TORCH:
                    torch_names.add(alias.asname or alias.name)
                elif root == "proof_lm" and rest:
                    library[alias.asname or alias.name] = f"{rest}:{alias.name}"
    return definitions, library, frozenset(torch_names)


def _walk_code(node: ast.AST):
    """The nodes of a definition but its annotations (which a copy can drop)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.arg):
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and child is node.returns:
            continue
        if isinstance(node, ast.AnnAssign) and child is node.annotation:
            continue
        yield child
        yield from _walk_code(child)


def uses_torch(entry: str, seen: frozenset[str] = frozenset()) -> bool:
    """True when the library's `entry` ("module:name") needs PyTorch to run: it imports it, names
    what its module imports of it, or calls a library function that does."""
    module, name = entry.split(":")
    definitions, library, torch_names = _module(module)
    node = definitions.get(name)
    if node is None or entry in seen:
        return False
    for inner in _walk_code(node):
        if isinstance(inner, ast.Import) and any(
            a.name.split(".")[0] in TORCH for a in inner.names
        ):
            return True
        if isinstance(inner, ast.ImportFrom) and (inner.module or "").split(".")[0] in TORCH:
            return True
        if isinstance(inner, ast.Name):
            if inner.id in torch_names:
                return True
            other = library.get(inner.id) or (
                f"{module}:{inner.id}" if inner.id in definitions else None
            )
            if other and other != entry and uses_torch(other, seen | {entry}):
                return True
    return False


def runs_where_graded(entry: str, exercise: str) -> bool:
    """True when a copy of the library's `entry` ("module:name") could run while `exercise` is graded."""
    if not EXERCISES[exercise].torch:
        return not uses_torch(entry)
    return not (exercise in ATTENTION_EXERCISES and entry in REFUSED_ATTENTION)


def held_back(released_chapters: list[str]) -> dict[str, list[str]]:
    """{entry: the exercises it answers} for what a kit of this stage holds back."""
    held: dict[str, list[str]] = {}
    for exercise, entries in LIBRARY_ANSWERS.items():
        if EXERCISES[exercise].chapter in released_chapters:
            continue
        for entry in entries:
            if runs_where_graded(entry, exercise):
                held.setdefault(entry, []).append(exercise)
    return held


def hold_back(library: Path, released_chapters: list[str]) -> dict[str, list[str]]:
    """Cut what this stage holds back out of the copied `library`, in place; return it."""
    held = held_back(released_chapters)
    by_module: dict[str, dict[str, list[str]]] = {}
    for entry, exercises in held.items():
        module, name = entry.split(":")
        by_module.setdefault(module, {})[name] = exercises
    for module, names in by_module.items():
        path = library / f"{module}.py"
        answers = sorted({e for exercises in names.values() for e in exercises})
        named = ", ".join(f"{e} (chapter {EXERCISES[e].chapter})" for e in answers)
        stub = STUB.replace("{ANSWERS}", f"an exercise not yet due: {named}")
        path.write_text(without_definitions(path.read_text(), set(names), stub))
    return held


def stage_table(released_chapters: list[str], held: dict[str, list[str]]) -> str:
    """Markdown for the kit's README: which chapters' answers the library holds, and what it holds back."""
    lines = [
        f"This kit carries the answers of {', '.join(released_chapters)}, released by your instructor."
        if released_chapters
        else "This kit was built before the first deadline."
    ]
    if held:
        lines.append(
            "Until their chapter's deadline, these library functions are held back (each raises "
            "`HeldBack` and names the exercise it answers):\n"
        )
        lines += [f"- `proof_lm.{e.replace(':', '.')}`: {', '.join(held[e])}" for e in sorted(held)]
    return "\n".join(lines) + "\n"
