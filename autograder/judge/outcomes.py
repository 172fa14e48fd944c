"""The grading process's answers as the trusted parent reads them: every size and shape checked."""

from dataclasses import dataclass

from autograder.judge.notebook import PARSING
from autograder.sandbox.guest.plain import unpack
from autograder.sandbox.guest.protocol import (
    ALIASES_KEPT,
    ARRAYS_PER_CALL,
    ARRAYS_SPARE,
    BASES_KEPT,
    Outcome,
)

JSON_LIMIT = 4 * 1024**2  # bytes of the answers' structure (arrays travel apart from it)
PROBLEMS_KEPT = 50  # failed statements reported; the rest are dropped
MESSAGE_CHARS = 500  # of an exception's message a student reads (one line only)
NAME_CHARS = 60  # of an exception's class name


def short_message(text: object) -> str:
    """An exception's message as a student may read it: one printable line of at most MESSAGE_CHARS.

    A message of several lines (a traceback, a dump, a disassembly) is not quoted at all.
    """
    lines = str(text).strip().splitlines() or [""]
    if len(lines) > 1:
        return f"(a message of {len(lines)} lines, not shown)"
    line = lines[0][:MESSAGE_CHARS] + ("…" if len(lines[0]) > MESSAGE_CHARS else "")
    return _printable(line)


def _printable(text: str) -> str:
    """`text` with every character a page or a file cannot show as is (a control, a lone
    surrogate, a direction override) replaced by "?"."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def _class_name(text: str) -> str:
    """An exception's class name as reported: identifier characters only, cut to NAME_CHARS."""
    return "".join(ch for ch in text if ch.isalnum() or ch in "_.")[:NAME_CHARS] or "Exception"


@dataclass
class Problem:
    """A top-level statement of the student's code that failed while loading."""

    cell: int  # the cell's place among the sources graded (1 for the first)
    line: int
    outcome: Outcome  # the exception, as data

    def note(self, cells: list[str]) -> str:
        """The note a student reads: the cell (as `cells` names the sources graded, in order), the
        line, and what was raised."""
        where = cells[self.cell - 1] if 0 < self.cell <= len(cells) else f"cell {self.cell}"
        return f"{where}, line {self.line}: {self.outcome.error}: {self.outcome.message}"


@dataclass
class Answers:
    """What a grading process that answered sent back, its shape checked."""

    found: bool  # the student's code defines the function
    problems: list[Problem]
    outcomes: list[Outcome]  # one per call, in order


def _outcome(raw: dict) -> Outcome:
    """An Outcome from the grading process's data; ValueError when its error fields are not text."""
    outcome = Outcome(**raw)
    if not (outcome.error is None or isinstance(outcome.error, str)):
        raise ValueError("malformed outcome")
    bases = outcome.error_bases
    if not (isinstance(bases, list | tuple) and len(bases) <= BASES_KEPT):
        raise ValueError("malformed outcome")
    if not (isinstance(outcome.message, str) and all(isinstance(b, str) for b in bases)):
        raise ValueError("malformed outcome")
    outcome.error_bases = tuple(bases)
    if outcome.error is not None:
        outcome.error = _class_name(outcome.error)
    outcome.message = short_message(outcome.message)
    aliases = outcome.aliases
    if not (isinstance(aliases, list) and len(aliases) <= ALIASES_KEPT):
        raise ValueError("malformed outcome")
    if not all(
        type(pair) is list
        and len(pair) == 2
        and type(pair[0]) is str
        and type(pair[1]) is int
        and 0 <= pair[1] < 1000
        for pair in aliases
    ):
        raise ValueError("malformed outcome")
    outcome.aliases = [[_printable(where[:200]), index] for where, index in aliases]
    return outcome


def _problem(raw: dict) -> Problem:
    """A Problem from the grading process's data; ValueError when it is not one."""
    problem = Problem(**{**raw, "outcome": _outcome(raw["outcome"])})
    if (
        type(problem.cell) is not int
        or type(problem.line) is not int
        or problem.outcome.error is None
    ):
        raise ValueError("malformed problem")
    return problem


def read_answers(data: bytes, expected: int) -> Answers:
    """Decode the grading process's answers, trusting nothing about their shape or size."""
    # linear in the bytes, which RESULT_LIMIT caps; one at a time bounds the memory. Each array
    # still costs a few microseconds, and 64 MB would hold millions of tiny ones: past the job's
    # budget of arrays (which the grading process keeps to) the frame is not read
    with PARSING:
        summary = unpack(data, ARRAYS_PER_CALL * expected + ARRAYS_SPARE, JSON_LIMIT)
    if not (isinstance(summary, dict) and {"found", "outcomes", "problems"} <= summary.keys()):
        raise ValueError("no summary of answers")
    raw_outcomes, raw_problems = summary["outcomes"], summary["problems"]
    if not (isinstance(raw_outcomes, list) and isinstance(raw_problems, list)):
        raise ValueError("outcomes or problems that are no list")
    if len(raw_outcomes) != (expected if summary["found"] else 0):
        raise ValueError(f"{len(raw_outcomes)} answers for {expected} calls")
    outcomes = [_outcome(raw) for raw in raw_outcomes]
    problems = [_problem(raw) for raw in raw_problems[:PROBLEMS_KEPT]]
    return Answers(bool(summary["found"]), problems, outcomes)
