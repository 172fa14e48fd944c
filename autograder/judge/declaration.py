"""An exercise's declaration: what its check module says of it at the top, `EXERCISE = Exercise(...)`.

Each graded function has one home, `autograder/judge/checks/<name in snake case>.py`: its
declaration (chapter, points, kind, what answers it, how it is timed) and its checks,
`<name>_checks(rng)`. The declaration is written in literals only, so that the tables derived from
it (`autograder.judge.exercises`, `autograder.judge.answer_key`) read it without importing the
module or PyTorch (`read_declaration`); importing the module gives the same object.
"""

import ast
import importlib
import re
import types
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from autograder.judge.check import Check

# What an exercise asks of the student (the course map's kinds): turn a given specification into
# code; derive a result the text does not state, by a method it gives; fix planted bugs; design
# against a target.
KINDS = ("implement", "derive", "debug", "design")
# The chapters whose exercises are written with PyTorch; every other exercise is graded in a sandbox
# without PyTorch (autograder.judge.mounted.mounts).
TORCH_CHAPTERS = frozenset({"08_gpt"})


@dataclass(frozen=True)
class Speed:
    """A timed exercise's speed check (`autograder.judge.timing`): its timed call, `<name>_timed(rng)`
    in its module, may take at most `ratio` times the reference's CPU time; a student's own kernel
    times it against `anchor` ("package.module:function"); `slow` is the hint when it is too slow."""

    ratio: float
    anchor: str
    slow: str


@dataclass(frozen=True)
class Exercise:
    """One graded function, as its check module declares it."""

    name: str  # its grade id and function (or class) name
    chapter: str  # its source notebook, solutions/<chapter>.ipynb
    points: int
    extra: bool = False  # a challenge: extra credit beside the chapter's score, never in the total
    kind: str = "implement"  # one of KINDS
    # what answers it, "module:name": of the library (proof_lm/<module>.py), cut out of its
    # sandbox's copy and held back from the kit; of the grader's guest
    # (autograder/sandbox/guest/<module>.py), cut out of its sandbox's copy
    library: tuple[str, ...] = ()
    grader: tuple[str, ...] = ()
    # a parameter budget: any model of that shape, counted at small widths, answers it, so the kit
    # keeps the library's model classes before its deadline (the first of the kit's two stated
    # exemptions, autograder.kit.stages)
    parameter_count: bool = False
    refuse_attention: bool = False  # PyTorch's finished attention layers refuse while it is graded
    refuse_schedules: bool = False  # PyTorch's shaped learning-rate schedules cut from its sandbox
    probe_only: bool = False  # its checks call it only through probes, never with plain arguments
    # plain calls from the chapter's worked examples, for the search for what answers an exercise
    # whose checks go through probes (tests/support/answer_search.py)
    worked_examples: tuple[tuple, ...] = ()
    # what a derive exercise's reference shares with the released text, reviewed by hand (the
    # forward pass, the names of its inputs and result): tests/checks/test_autograder_catalogue.py
    given_in_text: tuple[str, ...] = ()
    speed: Speed | None = None  # also timed: see Speed

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: kind {self.kind!r}, expected one of {', '.join(KINDS)}")
        if not re.fullmatch(r"\d\d_\w+", self.chapter):
            raise ValueError(f"{self.name}: chapter {self.chapter!r}, expected NN_name")
        if not (isinstance(self.points, int) and self.points > 0):
            raise ValueError(f"{self.name}: points {self.points!r}, expected a positive integer")

    @property
    def timed(self) -> bool:
        """True when a speed check follows its checks (`speed`)."""
        return self.speed is not None

    def checks(self, seed: int) -> list[Check]:
        """Build this exercise's checks from the grading run's `seed`; references are computed here."""
        rng = np.random.default_rng([seed, zlib.crc32(self.name.encode())])
        return getattr(self.checks_module, f"{self.name}_checks")(rng)

    def timed_check(self, seed: int) -> Check:
        """The one call of a timed exercise whose CPU time is measured, and its judge, from `seed`."""
        rng = np.random.default_rng([seed, zlib.crc32(self.name.encode()), 1])
        return getattr(self.checks_module, f"{self.name}_timed")(rng)

    @property
    def module(self) -> str:
        """Its module in autograder.judge.checks: the exercise's name in snake case."""
        return module_name(self.name)

    @property
    def checks_module(self) -> types.ModuleType:
        """The module of autograder.judge.checks that holds this exercise's checks, `<name>_checks(rng)`."""
        return importlib.import_module(f"autograder.judge.checks.{self.module}")

    @property
    def torch(self) -> bool:
        """True for a PyTorch exercise; a NumPy exercise is graded without PyTorch."""
        return self.chapter in TORCH_CHAPTERS

    @property
    def preamble(self) -> str:
        """The chapter's set-up code that solution cells may rely on: its notebook's set-up cell."""
        from autograder.judge.references import set_up_source

        return set_up_source(self.chapter)


def module_name(name: str) -> str:
    """An exercise's check module: its name in snake case (`CausalSelfAttention`: causal_self_attention)."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name).lower()


DECLARED = {"Exercise": Exercise, "Speed": Speed}  # what a declaration may call


def _evaluate(node: ast.expr, path: Path) -> object:
    """A declaration's value: a literal, or Exercise/Speed called with literal keywords."""
    if isinstance(node, ast.Call):
        if not (isinstance(node.func, ast.Name) and node.func.id in DECLARED) or node.args:
            raise ValueError(f"{path}: expected {' or '.join(DECLARED)}(keyword=literal, ...)")
        keywords = {kw.arg: _evaluate(kw.value, path) for kw in node.keywords}
        return DECLARED[node.func.id](**keywords)
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise ValueError(f"{path}:{node.lineno}: a declaration holds literals only") from None


def read_declaration(path: Path) -> Exercise | None:
    """The exercise a check module declares (`EXERCISE = Exercise(...)` at its top level), read
    without importing it; None for a module of shared checks, which declares none."""
    text = path.read_text()
    start = text.find("\nEXERCISE = ") + 1
    if not start:
        return None
    ends = (text.find("\n", start), text.find("\n)\n", start) + 2)  # one line, or a block
    for end in ends:
        try:
            (node,) = ast.parse(text[start:end]).body
        except SyntaxError:
            continue
        exercise = _evaluate(node.value, path)
        if not isinstance(exercise, Exercise) or module_name(exercise.name) != path.stem:
            raise ValueError(f"{path}: expected EXERCISE = Exercise(name=...) named as the file")
        return exercise
    raise ValueError(f"{path}: expected EXERCISE = Exercise(...) ending in a line ')'")
