"""What the student kit's library holds at each stage: an exercise's answer only after its deadline.

A stage is the set of chapters whose answers are released: those whose deadline (`DEADLINES` in the
course's nbgrader_config.py) has passed when the kit is built, or, when the instructor says so,
every chapter up to one (`make student-kit ANSWERS_THROUGH=04_gradients`). A library function or
class that answers an exercise of any other chapter is held back: the kit's copy of `proof_lm` has
it replaced where it stood by a stand-in that raises `HeldBack`, saying which exercise it answers.

Held back by what it computes, not by the language it is written in: a PyTorch routine that
answers a NumPy exercise is one translation away from the answer, so it is held back like any other,
and so is a class one of whose methods answers (the class is the entry). What answers an exercise
is `LIBRARY_ANSWERS`, whose completeness `tests/security/test_answer_keys.py` proves by calling
every library function and class on the exercise's check inputs, as arrays and as tensors;
`tests/course/test_kit_stages.py` attacks the kit at every stage by copying its library's source,
private helpers included, into each exercise not yet due. Two exemptions are stated below, and
none is silent.
"""

import ast
import datetime as dt
from pathlib import Path

from autograder.course.deadlines import deadlines
from autograder.course.directory import chapters
from autograder.judge.answer_key import LIBRARY_ANSWERS
from autograder.judge.exercises import EXERCISES
from autograder.judge.source_cut import refusing_stub, without_definitions
from autograder.paths import REPO

# The two stated exemptions (docs/grading.md, "What the kit holds back"), the only things that
# answer an exercise not yet due and stay in the kit all the same:
# 1. a parameter budget (the widest model within it) is answered by any model of that shape, counted
#    at small widths and the count inverted: a model class of the library stays (the course gives
#    `baselines.TorchContextMLP` and `gpt.TinyGPT` as the oracles students check their count against);
PARAMETER_COUNTS = frozenset(name for name, e in EXERCISES.items() if e.parameter_count)
# 2. `proof_lm.baselines`, whose interface every chapter imports as the course map fixes it: where
#    one of its classes answers an exercise, the exercise's contract or checks change, not the module.
EXEMPT_MODULES = frozenset({"baselines"})


def exempt(entry: str, exercise: str) -> bool:
    """True when the library's `entry` ("module:name") stays in the kit though it answers `exercise`."""
    module, name = entry.split(":")
    if module in EXEMPT_MODULES:
        return True
    tree = ast.parse((REPO / "proof_lm" / f"{module}.py").read_text())
    classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    return exercise in PARAMETER_COUNTS and name in classes


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


def held_back(released_chapters: list[str]) -> dict[str, list[str]]:
    """{entry: the exercises it answers} for what a kit of this stage holds back."""
    held: dict[str, list[str]] = {}
    for exercise, entries in LIBRARY_ANSWERS.items():
        if EXERCISES[exercise].chapter in released_chapters:
            continue
        for entry in entries:
            if not exempt(entry, exercise):
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
