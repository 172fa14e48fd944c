"""The grading process: load the student's code into a fresh interpreter, make the calls, write plain answers.

Run by `autograder.runner` as `python -I -B -m autograder.inside.child FD` inside the OS sandbox
(`autograder.wall.sandbox`). The request (preamble, the student's sources, the references of the
chapter's earlier exercises as code the parent compiled: no source text, no docstrings; the calls)
arrives on stdin and is read whole before any student code runs; the process makes itself
non-dumpable first; the answers go to the parent through the pipe FD. What went wrong travels
as data too: each exception's class name and the names of its bases, which the parent maps to flags
(`autograder.model.EVENT_FLAGS`); a process with no memory left to answer says so by its exit
status (EXIT_STATUS). Everything sent is untrusted data: the parent checks its size and format,
decodes it with allow_pickle=False and judges it against references it computed itself, which
never enter the sandbox.
"""

import ast
import ctypes
import io
import marshal
import os
import pickle
import signal
import sys
from types import MappingProxyType

import numpy as np

from autograder.inside import answer_guard, seccomp
from autograder.inside.harness import Outcome, error_outcome, resolve_probe, run_call
from autograder.inside.plain import dumps

# What the exit status of a grading process that could not answer says happened (by exception name).
EXIT_STATUS = {"MemoryError": 3}
PR_SET_DUMPABLE, PR_SET_PDEATHSIG = 4, 1


class _NullShell:
    """Stands in for get_ipython() so that magics in a solution cell do nothing."""

    def __getattr__(self, name: str) -> object:
        return lambda *args, **kwargs: None


def load_student_code(preamble: str, sources: list[str]) -> tuple[dict, list[dict]]:
    """Execute the preamble, then each top-level statement of each cell; collect what failed, as data."""
    from IPython.core.inputtransformer2 import TransformerManager

    namespace: dict = {"__name__": "__student__", "get_ipython": _NullShell}
    exec(compile(preamble, "<preamble>", "exec"), namespace)
    transformer, problems = TransformerManager(), []
    for number, source in enumerate(sources, start=1):
        try:
            tree = ast.parse(transformer.transform_cell(source), f"<cell {number}>")
        except SyntaxError as error:
            problems.append(_problem(number, error.lineno or 0, error, error.msg))
            continue
        except Exception as error:  # IPython gives up on some cells (e.g. 501 escaped lines)
            problems.append(_problem(number, 0, error))
            continue
        for statement in tree.body:
            try:
                module = ast.Module(body=[statement], type_ignores=[])
                exec(compile(module, f"<cell {number}>", "exec"), namespace)
            except BaseException as error:  # a top-level failure is reported, not fatal
                problems.append(_problem(number, statement.lineno, error))
    return namespace, problems


def _problem(cell: int, line: int, error: BaseException, message: str | None = None) -> dict:
    """A failure while loading the code: where, and the exception as data (see `error_outcome`)."""
    outcome = error_outcome(error)
    if message is not None:
        outcome.message = message
    return {"cell": cell, "line": line, "outcome": vars(outcome)}


def build_references(preamble: str, references: dict[str, bytes]) -> dict:
    """The chapter's earlier graded functions, from their code (compiled by the parent, no source)."""
    trusted: dict = {"__name__": "__reference__"}
    exec(compile(preamble, "<preamble>", "exec"), trusted)
    for code in references.values():
        exec(marshal.loads(code), trusted)
    return {name: trusted[name] for name in references}


def answer(request: dict) -> dict:
    """Build the references, load the student's code, make the calls: the summary to send back."""
    # built before any student code runs, and their source dropped: nothing to print out of a frame
    references = build_references(request["preamble"], request.pop("references"))
    if request.get("refuse_attention"):
        if (
            sys.platform == "linux"
        ):  # no program started: a fresh Python would run without the guard
            seccomp.install(seccomp.EXEC)
        answer_guard.install(request["function"])  # before any student code
    if request.get("one_process") and sys.platform == "linux":
        seccomp.install(seccomp.PROCESSES)  # a timed run: no process or thread but this one
    # what the calls below use, bound before student code runs: a submission that rebinds the
    # modules' names (harness.run_call) changes nothing here
    call_once, as_error = run_call, error_outcome
    probes = MappingProxyType(
        {c.probe: resolve_probe(c.probe) for c in request["calls"] if c.probe}
    )
    namespace, problems = load_student_code(request["preamble"], request["sources"])
    fn = namespace.get(request["function"])
    namespace.update(references)  # one bug costs one exercise
    outcomes: list[Outcome] = []
    if callable(fn):
        for call in request["calls"]:
            try:
                outcome = call_once(fn, call, probes)
            except BaseException as error:  # e.g. SystemExit from the student's function
                outcome = as_error(error)
            outcomes.append(outcome)
    return {
        "found": callable(fn),
        "problems": problems,
        "outcomes": [vars(outcome) for outcome in outcomes],
    }


def main() -> None:
    """Read the request, answer it, write the answers; exit with EXIT_STATUS["MemoryError"] when memory ran out."""
    # no dumps and no /proc/self/mem for other processes of its uid (nor, unless it undoes this, itself)
    ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    # pid 1 of its sandbox (bwrap --as-pid-1), its uid changed: die with bwrap, hence with the grader
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if sys.platform == "linux":
        seccomp.install()  # no kernel keyring: nothing outlives this run under its uid (see seccomp)
    try:
        request = pickle.loads(sys.stdin.buffer.read())  # written by the trusted parent
        result_pipe = os.fdopen(int(sys.argv[1]), "wb")
        text, arrays = dumps(answer(request))
        arrays["__json__"] = np.frombuffer(text.encode(), dtype=np.uint8)
        buffer = io.BytesIO()
        np.savez(buffer, allow_pickle=False, **arrays)
        with result_pipe:
            result_pipe.write(buffer.getvalue())
    except MemoryError:  # too little memory left to answer: say so by the exit status alone
        os._exit(EXIT_STATUS["MemoryError"])


if __name__ == "__main__":
    main()
