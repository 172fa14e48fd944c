"""The grading process: load the student's code once, then check each exercise in a fork of it.

Run by `autograder.sandbox.host.grading_process` as `python -I -B -m autograder.sandbox.guest.child JOBS ANSWERS`
(two pipes; stdin is empty) inside the OS sandbox (`autograder.sandbox.host.bwrap`), one per submission
and environment. The conversation, in
frames (`FRAME`): the trusted parent sends the opening (preamble, the student's sources, the probes
to resolve, whether PyTorch's attention layers are refused, whether this is a timed run); the
process makes itself non-dumpable, installs what the opening asks for, resolves the probes, loads
the student's code once (every top-level statement; a failure is data, not fatal) and says
LOADED. Then, one exercise at a time, the parent sends a job (the function to check, the
references of the chapter's earlier exercises as code the parent compiled: no source text, no
docstrings; the calls; for a batch of the course's own files, the sources to load in the copy
instead, see `autograder.judge.runner.check_each`); the process forks a copy of itself as it stood after loading, the copy
binds the references (one bug costs one exercise), makes the calls and writes plain answers, and
the process forwards them (ANSWERS) or the copy's exit status (STATUS, TIMED_OUT past the job's
budget), then kills and reaps whatever the copy started. The parent sends a job only once the one
before it is answered, so a job's references reach no earlier exercise's copy. The last job (and
a timed run's one job: it may start no other process) is answered in this process itself, which
nothing else will use. What went wrong travels as data too: each exception's class name and the
names of its bases, which the parent maps to flags (`autograder.judge.verdicts.EVENT_FLAGS`); a copy with no memory left
to answer says so by its exit status (EXIT_STATUS). Everything sent back is untrusted data: the
parent checks its size and format, decodes it with allow_pickle=False and judges it against
references it computed itself, which never enter the sandbox.
"""

import ast
import contextlib
import ctypes
import io
import marshal
import os
import pickle
import select
import signal
import sys
import time
from types import MappingProxyType

from autograder.sandbox.guest import answer_guard, seccomp
from autograder.sandbox.guest.calls import error_outcome, resolve_probe, sealed_run_call
from autograder.sandbox.guest.outputs import Capture
from autograder.sandbox.guest.plain import count_arrays, pack
from autograder.sandbox.guest.protocol import (
    ANSWERS,
    ARRAYS_PER_CALL,
    ARRAYS_SPARE,
    EXIT_STATUS,
    FRAME,
    LOADED,
    NO_COPY,
    RESULT_LIMIT,
    STATUS,
    TIMED_OUT,
    Outcome,
)

PR_SET_DUMPABLE, PR_SET_PDEATHSIG = 4, 1


class _NullShell:
    """Stands in for get_ipython() so that magics in a solution cell do nothing."""

    def __getattr__(self, name: str) -> object:
        return lambda *args, **kwargs: None


def load_student_code(
    preamble: str, sources: list[str], capture: Capture | None = None
) -> tuple[dict, list[dict]]:
    """Execute the preamble, then each top-level statement of each cell; collect what failed, as data.

    With `capture`, what each cell shows (its printing, its last expression's value, its errors
    and figures) is kept there, as a notebook would show it.
    """
    from IPython.core.inputtransformer2 import TransformerManager

    if capture is not None:  # IPython's display shows what it is given, as in a notebook
        import IPython.core.display
        import IPython.core.display_functions
        import IPython.display

        for module in (IPython.display, IPython.core.display, IPython.core.display_functions):
            module.display = capture.display
    namespace: dict = {"__name__": "__student__", "get_ipython": _NullShell}
    exec(compile(preamble, "<preamble>", "exec"), namespace)
    transformer, problems = TransformerManager(), []
    streams = sys.stdout, sys.stderr
    if capture is not None:
        sys.stdout, sys.stderr = capture.stdout, capture.stderr
    try:
        for number, source in enumerate(sources, start=1):
            if capture is not None:
                capture.start_cell()
            _load_cell(number, source, transformer, namespace, problems, capture)
            if capture is not None:
                capture.figures()
                capture.end_cell()
    finally:
        sys.stdout, sys.stderr = streams
    return namespace, problems


def _load_cell(
    number: int,
    source: str,
    transformer: object,
    namespace: dict,
    problems: list[dict],
    capture: Capture | None,
) -> None:
    """Run one cell's top-level statements; the last one's value is shown, as a notebook does.

    A problem's line is the cell's own, as the notebook numbers it: IPython's transformer drops the
    blank lines a cell begins with, and they are counted back in."""
    blank = source[: len(source) - len(source.lstrip())].count("\n")
    try:
        code = transformer.transform_cell(source)
        tree = ast.parse(code, f"<cell {number}>")
    except SyntaxError as error:
        problems.append(_problem(number, (error.lineno or 0) + blank, error, error.msg, capture))
        return
    except Exception as error:  # IPython gives up on some cells (e.g. 501 escaped lines)
        problems.append(_problem(number, 0, error, capture=capture))
        return
    shown = capture is not None and not code.rstrip().endswith(";")
    for index, statement in enumerate(tree.body):
        try:
            if shown and index == len(tree.body) - 1 and isinstance(statement, ast.Expr):
                expression = ast.Expression(body=statement.value)
                capture.result(eval(compile(expression, f"<cell {number}>", "eval"), namespace))
                continue
            module = ast.Module(body=[statement], type_ignores=[])
            exec(compile(module, f"<cell {number}>", "exec"), namespace)
        except BaseException as error:  # a top-level failure is reported, not fatal
            problems.append(_problem(number, statement.lineno + blank, error, capture=capture))


def _problem(
    cell: int,
    line: int,
    error: BaseException,
    message: str | None = None,
    capture: Capture | None = None,
) -> dict:
    """A failure while loading the code: where, and the exception as data (see `error_outcome`)."""
    outcome = error_outcome(error)
    if message is not None:
        outcome.message = message
    if capture is not None:
        capture.error(outcome.error, outcome.message)
    return {"cell": cell, "line": line, "outcome": vars(outcome)}


def build_references(preamble: str, references: dict[str, bytes]) -> dict:
    """The chapter's earlier graded functions, from their code (compiled by the parent, no source)."""
    trusted: dict = {"__name__": "__reference__"}
    exec(compile(preamble, "<preamble>", "exec"), trusted)
    for code in references.values():
        exec(marshal.loads(code), trusted)
    return {name: trusted[name] for name in references}


def read_frame(stream: io.BufferedReader) -> bytes | None:
    """The next frame's payload from `stream`; None once the parent has closed it."""
    header = stream.read(FRAME.size)
    if len(header) < FRAME.size:
        return None
    _, length = FRAME.unpack(header)
    return stream.read(length)


def _read_now(read: object, fd: int) -> bytes:
    """What a non-blocking `fd` holds now (empty at its end or when nothing is waiting)."""
    try:
        return read(fd, 1 << 16)
    except BlockingIOError:
        return b""


def answers_bytes(summary: dict) -> bytes:
    """A summary of answers as the parent reads it (`autograder.sandbox.guest.plain.pack`)."""
    return pack(summary)


def serve(inbox: io.BufferedReader, outbox: io.BufferedWriter) -> None:
    """The conversation of the module's docstring, from the opening to the parent's last job."""

    def send(kind: bytes, payload: bytes) -> None:
        outbox.write(FRAME.pack(kind, len(payload)) + payload)
        outbox.flush()

    opening = pickle.loads(read_frame(inbox))  # written by the trusted parent
    if opening["no_programs"] and sys.platform == "linux":  # before any student code
        seccomp.install(seccomp.EXEC, kill=True)
    if opening["refuse_attention"]:
        answer_guard.install(opening["refuse_attention"])
    one_process = opening["one_process"]
    if one_process and sys.platform == "linux":
        seccomp.install(seccomp.PROCESSES)  # a timed run: no process or thread but this one
    # what the jobs below use, bound before student code runs: a submission that rebinds the
    # modules' names (os.fork, calls.run_call, ...) changes nothing here
    check, fork, wait, kill, exit_now = sealed_run_call(), os.fork, os.waitpid, os.kill, os._exit
    pipe, close, read, fdopen, select_ = os.pipe, os.close, os.read, os.fdopen, select.select
    no_hang, exit_code, sigkill = os.WNOHANG, os.waitstatus_to_exitcode, signal.SIGKILL
    pidfd_open, set_blocking = os.pidfd_open, os.set_blocking
    listdir, getpid, suppress = os.listdir, os.getpid, contextlib.suppress
    clock, pack, loads, load_refs = time.monotonic, answers_bytes, pickle.loads, build_references
    load, count = load_student_code, count_arrays
    probes = MappingProxyType({name: resolve_probe(name) for name in opening["probes"]})
    capture = Capture() if opening["show"] else None  # what the cells show, where it is shown
    namespace, problems = load_student_code(opening["preamble"], opening["sources"], capture)
    send(LOADED, capture.payload() if capture is not None else b"")

    def answer(job: dict) -> bytes:
        space, found = namespace, problems
        if "sources" in job:  # a submission of its own (`runner.check_each`): loaded in its copy
            space, found = load(opening["preamble"], job["sources"])
        fn = space.get(job["function"])
        space.update(load_refs(opening["preamble"], job["references"]))  # one bug, one exercise
        outcomes: list[Outcome] = []
        budget = ARRAYS_PER_CALL * len(job["calls"]) + ARRAYS_SPARE  # what the parent reads
        if callable(fn):
            for call in job["calls"]:
                outcome = check(fn, call, probes)
                held = count(outcome.value) + count(outcome.args_after)
                if held > budget:
                    outcome = Outcome(
                        error="NotPlain",
                        error_bases=("NotPlain",),
                        message=f"the answer holds {held} NumPy arrays, more than the grader reads "
                        f"for this exercise's checks ({budget} in all)",
                    )
                    held = 0
                budget -= held
                outcomes.append(outcome)
        return pack(
            {
                "found": callable(fn),
                "problems": found,
                "outcomes": [vars(outcome) for outcome in outcomes],
            }
        )

    while (frame := read_frame(inbox)) is not None:
        job = loads(frame)
        if one_process or job["last"]:  # no exercise after it: this process is its copy
            send(ANSWERS, answer(job))
            continue
        deadline = clock() + job["timeout"]
        before = set(listdir("/proc")) if getpid() == 1 else set()
        if len(listdir("/proc/self/task")) > 1:  # threads (a pool PyTorch or OpenMP started): a
            send(
                STATUS, NO_COPY
            )  # fork keeps only this one and may hang; the parent grades it apart
            continue
        try:
            read_end, write_end = pipe()
            pid = fork()
        except OSError:  # no process or memory left to spare, by the code's own doing
            send(STATUS, NO_COPY)
            continue
        if pid == 0:  # the copy: answer, hand the answers over, leave without cleaning up
            close(read_end)
            close(inbox.fileno())  # the conversation is pid 1's, not the copy's
            close(outbox.fileno())
            try:
                data = answer(job)
                with fdopen(write_end, "wb") as out:
                    out.write(data)
                exit_now(0)
            except MemoryError:  # too little memory left to answer: say so by the exit status
                exit_now(EXIT_STATUS["MemoryError"])
            except BaseException:  # whatever the student's code did to the copy
                exit_now(EXIT_STATUS["crashed"])
        close(write_end)
        # read what the copy sends until it exits (a process it started may hold the pipe open)
        exited, chunks, size, status = pidfd_open(pid), [], 0, None
        while status is None and (left := deadline - clock()) > 0:
            ready = select_([read_end, exited], [], [], left)[0]
            if read_end in ready and (chunk := read(read_end, 1 << 16)):
                size += len(chunk)
                chunks += [chunk] if size <= RESULT_LIMIT else []
                continue
            if exited in ready or read_end in ready:  # exited, or closed its end: wait for it
                done, code = wait(pid, 0 if exited in ready else no_hang)
                status = exit_code(code) if done else None
                if status is None:
                    select_([exited], [], [], max(0.0, deadline - clock()))
        set_blocking(read_end, False)
        while status is not None and clock() < deadline and (chunk := _read_now(read, read_end)):
            size += len(chunk)
            chunks += [chunk] if size <= RESULT_LIMIT else []
        close(read_end)
        close(exited)
        if status is None:  # past its budget: ended here (the parent's own deadline is later)
            kill(pid, sigkill)
            wait(pid, 0)
        if before:  # pid 1 of the sandbox: what the copy started goes with it, reaped here
            for other in set(listdir("/proc")) - before:
                if other.isdigit() and int(other) != 1:
                    with suppress(OSError):
                        kill(int(other), sigkill)
            with suppress(ChildProcessError):
                while wait(-1, no_hang)[0] > 0:
                    pass
        if status is None:
            send(STATUS, TIMED_OUT)
        elif status == 0 and 0 < size <= RESULT_LIMIT:
            send(ANSWERS, b"".join(chunks))
        else:
            send(STATUS, str(status).encode())


def main() -> None:
    """Make the process non-dumpable and tied to its sandbox, then hold the conversation (`serve`)."""
    # no dumps and no /proc/self/mem for other processes of its uid (nor, unless it undoes this, itself)
    ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    # pid 1 of its sandbox (bwrap --as-pid-1), its uid changed: die with bwrap, hence with the grader;
    # the copies it forks die with it (a pid namespace ends with its pid 1)
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if sys.platform == "linux":
        seccomp.install()  # no kernel keyring: nothing outlives this run under its uid (see seccomp)
    flush_errors, exit_now = sys.stderr.flush, os._exit  # bound before any student code runs
    try:
        inbox, outbox = os.fdopen(int(sys.argv[1]), "rb"), os.fdopen(int(sys.argv[2]), "wb")
        with inbox, outbox:
            serve(inbox, outbox)
    except MemoryError:  # too little memory left to go on: say so by the exit status alone
        exit_now(EXIT_STATUS["MemoryError"])
    except BrokenPipeError:  # the parent stopped listening (its deadline passed)
        exit_now(0)
    # the conversation is over: leave without the interpreter's teardown (with PyTorch loaded it
    # took 0.8 s of every grading process's life), what was written to stderr flushed first
    with contextlib.suppress(BaseException):
        flush_errors()
    exit_now(0)


if __name__ == "__main__":
    main()
