"""Running `autograder.sandbox.guest.child` from the trusted side: start it in the OS sandbox, talk to it, end it."""

import contextlib
import os
import pickle
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from autograder.sandbox.guest.protocol import (
    ANSWERS,
    FRAME,
    JOB,
    LOADED,
    NO_COPY,
    OPENING,
    RESULT_LIMIT,
    STATUS,
    TIMED_OUT,
)
from autograder.sandbox.host import bwrap, policy

PRINT_LIMIT = 64 * 1024  # bytes of its stderr the parent keeps (the rest is read and dropped)
GRACE = 5.0  # seconds the process has, beyond a job's budget, to report on it


@dataclass
class SessionRun:
    """What one grading process left: whether it loaded, each job's answers, its (capped) output.

    `answers` holds, per job sent, the answers' bytes, or the exit status of the copy that made
    them (an int), or None when it ran past its budget, or "no copy" when none could be started
    safely (no process to spare, or threads running that a fork would not keep);
    jobs never sent (the process stopped or loading took too long) have no entry.
    """

    loaded: bool
    answers: list[bytes | int | str | None]
    malformed: bool  # it sent something that is no frame of the protocol (or too big)
    returncode: int | None  # None: it was still running at the end
    stderr: bytes
    cpu_seconds: float = 0.0  # user + system time of its whole process tree, as the kernel counted
    wall_seconds: float = 0.0  # from its start to its end, on the grader's clock
    shown: bytes = b""  # what loading showed, cell by cell (LOADED's payload: untrusted JSON)


class _Stopped(Exception):
    """The grading process stopped answering: it ran `late`, `closed` its end, or sent something
    `malformed` (the reason is the exception's one argument)."""


def run_session(
    opening: dict,
    jobs: list[dict],
    label: str,
    load_timeout: float,
    timeout: float,
    sandboxed: bool,
    limits: bwrap.Limits,
    readonly: list[tuple[Path, str]],
) -> SessionRun:
    """Start a grading process (in the OS sandbox unless told not to) and hold its conversation.

    `opening` goes first; once the process says it has loaded the student's code (within
    `load_timeout` seconds) each job follows, one at a time, each only after the one before it is
    answered (so a job's references never reach an earlier exercise's copy), each with `timeout`
    seconds (its copy's budget, counted inside) and a few seconds' grace for the process.
    """
    argv = [sys.executable, "-I", "-B", "-m", "autograder.sandbox.guest.child"]
    with bwrap.account() as account:
        jobs_read, jobs_write = os.pipe()  # the conversation has pipes of its own: stdin is empty
        read_end, write_end = os.pipe()
        errors_read, errors_write = os.pipe()
        argv += [str(jobs_read), str(write_end)]
        command = (
            bwrap.bwrap_command(
                argv, readonly=readonly, uid=account.uid, limits=limits, as_pid_1=True
            )
            if sandboxed
            else argv
        )
        env = policy.grading_launch(os.environ)
        started = time.monotonic()
        end = started + load_timeout + len(jobs) * (timeout + GRACE) + GRACE
        with _scratch() as work:  # the cwd of an unsandboxed run (a sandboxed one has its tmpfs)
            process = subprocess.Popen(
                command,
                cwd=work,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=errors_write,
                pass_fds=(jobs_read, write_end),
                preexec_fn=bwrap.preexec(limits),
            )
            for fd in (jobs_read, write_end, errors_write):
                os.close(fd)
            os.set_blocking(jobs_write, False)
            answers: list[bytes | int | str | None] = []
            loaded = malformed = False
            shown = b""
            with ThreadPoolExecutor(max_workers=1) as pool:
                stderr = pool.submit(_drain, errors_read, PRINT_LIMIT, end)
                try:
                    _send(jobs_write, OPENING, pickle.dumps(opening), started + load_timeout)
                    kind, payload = _receive(read_end, started + load_timeout)
                    if kind != LOADED:
                        raise _Stopped("malformed")
                    loaded, shown, received = True, payload, 0  # answers alone count
                    for number, job in enumerate(jobs, start=1):
                        last = number == len(jobs)  # answered in the process itself: no inner clock
                        deadline = time.monotonic() + timeout + (1.0 if last else GRACE)
                        job = {**job, "timeout": timeout, "last": last}
                        _send(jobs_write, JOB, pickle.dumps(job), deadline)
                        kind, payload = _receive(read_end, deadline)
                        received += len(payload)
                        if received > RESULT_LIMIT:  # what one session may hand back, in all
                            raise _Stopped("malformed")
                        answers.append(_answer(kind, payload))
                except _Stopped as stop:
                    malformed = stop.args[0] == "malformed"
                    if loaded and len(answers) < len(jobs) and stop.args[0] != "closed":
                        # the job in hand: past the process's deadline, or unreadable answers
                        answers.append(None if stop.args[0] == "late" else b"")
                finally:  # no more jobs: the process ends, or is ended
                    os.close(jobs_write)
                    returncode, cpu = _reap(
                        process, min(end, time.monotonic() + GRACE), sandboxed, account.uid
                    )
                    os.close(read_end)
                wall = time.monotonic() - started
                return SessionRun(
                    loaded, answers, malformed, returncode, stderr.result(), cpu, wall, shown
                )


def _answer(kind: bytes, payload: bytes) -> bytes | int | str | None:
    """One job's entry in `SessionRun.answers` from the frame the process sent for it."""
    if kind == ANSWERS:
        return payload
    if kind == STATUS and payload == TIMED_OUT:
        return None
    if kind == STATUS and re.fullmatch(rb"-?[0-9]{1,9}", payload):
        return int(payload)
    if kind == STATUS and payload == NO_COPY:
        return "no copy"
    raise _Stopped("malformed")


def _send(fd: int, kind: bytes, payload: bytes, deadline: float) -> None:
    """Write one frame to the process's job pipe by `deadline` (it may never read it)."""
    data = memoryview(FRAME.pack(kind, len(payload)) + payload)
    while data:
        left = deadline - time.monotonic()
        if left <= 0 or not _ready(fd, select.POLLOUT, left):
            raise _Stopped("late")
        try:
            data = data[os.write(fd, data[: 1 << 16]) :]
        except BlockingIOError:
            continue
        except OSError:  # it closed its end
            raise _Stopped("closed") from None


def _receive(fd: int, deadline: float) -> tuple[bytes, bytes]:
    """The next frame the process sends, by `deadline`; `_Stopped` if none comes or it is too big."""
    kind, length = FRAME.unpack(_read_exactly(fd, FRAME.size, deadline))
    if length > RESULT_LIMIT:
        raise _Stopped("malformed")
    return kind, _read_exactly(fd, length, deadline)


def _read_exactly(fd: int, size: int, deadline: float) -> bytes:
    """`size` bytes from `fd` by `deadline`, or `_Stopped`."""
    chunks, got = [], 0
    while got < size:
        left = deadline - time.monotonic()
        if left <= 0 or not _ready(fd, select.POLLIN, left):
            raise _Stopped("late")
        chunk = os.read(fd, min(size - got, 1 << 16))
        if not chunk:
            raise _Stopped("closed")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


@contextlib.contextmanager
def _scratch() -> Iterator[str]:
    """A fresh folder, removed with `rm -rf` (no depth limit, unlike shutil.rmtree's recursion)."""
    work = tempfile.mkdtemp(prefix="proof-lm-grade-")
    try:
        yield work
    finally:
        if shutil.which("rm"):
            subprocess.run(["rm", "-rf", "--one-file-system", work], check=False)
        else:  # no rm on PATH (a self-grade may run with a bare environment)
            shutil.rmtree(work, ignore_errors=True)


def _ready(fd: int, event: int, seconds: float) -> bool:
    """Whether `fd` is ready for `event` (or closed) within `seconds` (poll: any descriptor number,
    where select refuses those past 1023, as a busy server has)."""
    poller = select.poll()
    poller.register(fd, event)
    return bool(poller.poll(seconds * 1000))


def _drain(fd: int, limit: int, deadline: float) -> bytes:
    """Read a pipe until it closes or `deadline` passes, keeping its last `limit` bytes."""
    kept = b""
    try:
        while (left := deadline - time.monotonic()) > 0:
            if not _ready(fd, select.POLLIN, left):
                break
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            kept = (kept + chunk)[-limit:]
    finally:
        os.close(fd)
    return kept


def _exited(pid: int, seconds: float) -> bool:
    """Whether the child `pid` has exited (not yet reaped) within `seconds`."""
    handle = os.pidfd_open(pid)
    try:
        return _ready(handle, select.POLLIN, max(0.0, seconds))
    finally:
        os.close(handle)


def _reap(
    process: subprocess.Popen, deadline: float, sandboxed: bool, uid: int | None
) -> tuple[int | None, float]:
    """Wait for the grading process until `deadline`, then end it; its exit status and CPU seconds.

    The status is None when it was still running at the deadline. The CPU seconds are the kernel's
    count (wait4: user + system) for the process and every descendant reaped before it. In the
    sandbox the code is pid 1 (`bwrap_command(as_pid_1=True)`), so its threads, the children it
    waits for and the orphans that exited before it all count; a process still running when pid 1
    exits is killed and reaped uncounted, which is why a timed run may start none
    (`autograder.sandbox.guest.seccomp.PROCESSES`). Nothing the code does inside changes the figure.
    """
    returncode = None
    if _exited(process.pid, deadline - time.monotonic()):
        _, status, usage = os.wait4(process.pid, 0)
        returncode = os.waitstatus_to_exitcode(status)
    else:
        if sandboxed:
            _end_sandbox(process.pid, uid)  # its pid 1 gone, bwrap reaps it and exits
        if not sandboxed or not _exited(process.pid, 5.0):
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGKILL)
        _, _, usage = os.wait4(process.pid, 0)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)  # whatever is left in its group
    process.returncode = -signal.SIGKILL if returncode is None else returncode  # reaped here
    return returncode, usage.ru_utime + usage.ru_stime


def _end_sandbox(outer: int, uid: int | None) -> None:
    """Kill everything inside a sandbox whose outer bwrap process is `outer`.

    As root every process of the sandbox's own uid is killed (the uid is this sandbox's alone, see
    `bwrap.Account`), by `kill -1` run as that uid: no pid is read and then signalled, so a pid
    reused in between is never hit. Otherwise the code kept our uid, and its pid 1 is the one child
    of bwrap: it has not changed uid, so it also dies with bwrap.
    """
    kill = shutil.which("kill", path="/usr/bin:/bin")
    if uid and kill:  # kill(-1) as that uid: every process of the uid but the kill itself
        subprocess.run([kill, "-KILL", "-1"], user=uid, group=uid, check=False)
        return
    inside = bwrap.sandbox_pid(outer)
    if inside is not None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(inside, signal.SIGKILL)
