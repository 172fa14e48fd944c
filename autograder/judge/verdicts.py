"""The verdict types: one check's result, one exercise's report, and the flags an instructor reads."""

from dataclasses import dataclass, field
from enum import StrEnum


class Flag(StrEnum):
    """A reason an instructor should look at a submission; its value is the reason as shown."""

    EXIT = "tried to exit the interpreter"
    MEMORY = "memory limit"
    NOT_PLAIN = "returned an object that is not plain data"
    ANSWER_KEY = "used an implementation of the exercise that the environment ships"
    TIMEOUT = "timeout"
    CRASHED = "crashed"
    MALFORMED = "malformed answers"

    @property
    def tampering(self) -> bool:
        """True for what no honest solution does (exit, hand back objects, forge answers, use the key)."""
        return self in {Flag.EXIT, Flag.NOT_PLAIN, Flag.MALFORMED, Flag.ANSWER_KEY}


# The one table from what the grading process reports (an exception's class, found by walking its
# bases nearest first) to the flag it raises. None: an ordinary error, a wrong answer and no flag.
EVENT_FLAGS: dict[str, Flag | None] = {
    "MemoryError": Flag.MEMORY,
    "NotPlain": Flag.NOT_PLAIN,
    "AnswerKeyError": Flag.ANSWER_KEY,
    "Exception": None,
    "BaseException": Flag.EXIT,  # SystemExit, KeyboardInterrupt and whatever else skips `except Exception`
}


def event_flag(bases: tuple[str, ...] | list[str]) -> Flag | None:
    """The flag of an error whose class and bases are named `bases` (nearest first), or None."""
    for name in bases:
        if name in EVENT_FLAGS:
            return EVENT_FLAGS[name]
    return None


@dataclass
class CheckResult:
    """The verdict of one check."""

    name: str
    passed: bool
    hint: str = ""


@dataclass
class ExerciseReport:
    """All check verdicts for one exercise, and the points they earn (all or nothing)."""

    exercise: str
    points: int
    results: list[CheckResult] = field(default_factory=list)
    notes: list[str] = field(
        default_factory=list
    )  # this exercise's: timeouts, crashes, no function
    # the student's cells that failed while loading: the same for every exercise graded by one load,
    # so a submission's report states them once (`autograder.judge.report.loading_notes`)
    loading: list[str] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)  # reasons an instructor should look
    seed: int | None = None  # the grading run's seed for the hidden cases (replay with --seed)
    extra: bool = False  # a challenge: its points are extra credit, outside the chapter's score

    @property
    def passed(self) -> bool:
        """True when there were checks and every one passed."""
        return bool(self.results) and all(result.passed for result in self.results)

    @property
    def tampered(self) -> bool:
        """True when the grading process caught the code doing what no honest solution does."""
        return any(flag.tampering for flag in self.flags)

    @property
    def earned(self) -> int:
        """Points earned: all of them when every check passed and nothing was tampered with, else none."""
        return self.points if self.passed and not self.tampered else 0
