"""What the grading process and the trusted grader agree on: the frames they exchange, the statuses,
the calls a check asks for and the outcomes it gets back.

Data only, imported by both sides (`autograder.sandbox.guest.child`, the judge and every check
module, `autograder.sandbox.host.grading_process`); it imports nothing but the standard library and
runs no student code (`autograder.sandbox.guest.calls` does).
"""

import struct
from collections.abc import Callable
from dataclasses import dataclass, field

FRAME = struct.Struct(">cQ")  # a frame's header, either way: its kind and the payload's length
OPENING, JOB = b"O", b"J"  # to the process: what to load and how; one exercise to check
LOADED, ANSWERS, STATUS = (
    b"L",
    b"A",
    b"S",
)  # from it: loading is over; a job's answers; or its status
TIMED_OUT = b"timeout"  # a STATUS payload: the copy was still running at its job's deadline
NO_COPY = b"nocopy"  # a STATUS payload: no copy could be started (no process or memory to spare)
RESULT_LIMIT = 64 * 1024**2  # bytes of answers one job may send
# What loading the student's cells printed, shown on the feedback page beside each cell (LOADED's
# payload): at most OUTPUT_CHARS characters per output and NOTEBOOK_CHARS for the whole notebook.
OUTPUT_CHARS = 100_000
NOTEBOOK_CHARS = 4_000_000
OUTPUTS = 2_000  # outputs of the notebook in all (each also costs OUTPUT_COST of NOTEBOOK_CHARS)
OUTPUT_COST = 100
SHOWN_LIMIT = 8 * 1024**2  # bytes of LOADED's payload the trusted side reads; past it, nothing
# An answer's arrays that share memory with an argument, and an exception's classes (itself and its
# bases), that the parent reads: the judge names the first alias only, and a real exception's
# classes are a handful.
ALIASES_KEPT = 64
BASES_KEPT = 64
# Arrays one job's answers may hold: ARRAYS_PER_CALL for each call, plus ARRAYS_SPARE. The grading
# process turns an answer past that budget into a failed call of its own (NotPlain); the parent
# refuses a frame past it as malformed. Measured over the whole catalogue of implementations, right
# and wrong: at most 1,038 arrays in a job.
ARRAYS_PER_CALL = 2
ARRAYS_SPARE = 2_000
# What the exit status of a copy that could not answer says happened (by exception name).
EXIT_STATUS = {"MemoryError": 3, "crashed": 4}


@dataclass
class Call:
    """One call of the student's function: plain arguments, or a probe that builds them.

    A check names its probe by reference (a function of a guest module); the call holds its name,
    "module:function", which is what crosses to the grading process (resolved there by name).
    """

    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    # "module:function" run as probe(fn, *args, **kwargs) -> plain data; given as the function
    probe: Callable | str | None = None

    def __post_init__(self) -> None:
        probe = self.probe
        if probe is not None and not isinstance(probe, str):  # a function: sent by its name
            name = f"{probe.__module__}:{probe.__qualname__}"
            if (
                not probe.__module__.startswith("autograder.sandbox.guest.")
                or "." in probe.__qualname__
            ):
                raise ValueError(
                    f"expected a top-level function of a guest module as a probe, got {name}"
                )
            self.probe = name


@dataclass
class Outcome:
    """What one call produced: a plain value or an error, and the arguments as they were afterwards."""

    value: object = None
    error: str | None = None  # exception class name
    error_bases: tuple[str, ...] = ()
    message: str = ""
    args_after: object = None
    aliases: list = field(
        default_factory=list
    )  # [where in the answer, argument index]: memory shared

    def raised(self, name: str) -> bool:
        """True when the call raised `name` or a subclass of it."""
        return self.error is not None and name in self.error_bases
