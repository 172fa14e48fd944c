"""Running `autograder.inside.child` from the trusted side: start it in the OS sandbox, feed it, read it, end it."""

import contextlib
import os
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

from autograder.wall import answer_key, policy, sandbox

RESULT_LIMIT = 64 * 1024**2  # bytes of answers a grading process may send
PRINT_LIMIT = (
    64 * 1024
)  # bytes of its stdout / stderr the parent keeps (the rest is read and dropped)


@dataclass
class ChildRun:
    """What one run of the grading process left: its exit status, answers and (capped) output."""

    returncode: int | None  # None: it was still running at the deadline
    result: bytes
    stderr: bytes
    cpu_seconds: float = 0.0  # user + system time of its whole process tree, as the kernel counted
    wall_seconds: float = 0.0  # from its start to its end, on the grader's clock


def run_child(
    request: bytes, exercise: str, timeout: float, sandboxed: bool, limits: sandbox.Limits
) -> ChildRun:
    """Start the grading process for `exercise` (in the OS sandbox unless told not to), feed it, read it, end it."""
    argv = [sys.executable, "-I", "-B", "-m", "autograder.inside.child"]
    with sandbox.account() as account:
        read_end, write_end = os.pipe()
        errors_read, errors_write = os.pipe()
        argv.append(str(write_end))
        command = (
            sandbox.bwrap_command(
                argv,
                readonly=answer_key.mounts(exercise),
                uid=account.uid,
                limits=limits,
                as_pid_1=True,
            )
            if sandboxed
            else argv
        )
        env = policy.grading_launch(os.environ)
        started = time.monotonic()
        deadline = started + timeout
        with _scratch() as work:  # the cwd of an unsandboxed run (a sandboxed one has its tmpfs)
            process = subprocess.Popen(
                command,
                cwd=work,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=errors_write,
                pass_fds=(write_end,),
                preexec_fn=sandbox.preexec(limits),
            )
            os.close(write_end)
            os.close(errors_write)
            with ThreadPoolExecutor(max_workers=3) as pool:
                pool.submit(_feed, process.stdin, request)
                result = pool.submit(_drain, read_end, RESULT_LIMIT, deadline)
                stderr = pool.submit(_drain, errors_read, PRINT_LIMIT, deadline)
                returncode, cpu = _reap(process, deadline, sandboxed, account.uid)
                wall = time.monotonic() - started
                return ChildRun(returncode, result.result(), stderr.result(), cpu, wall)


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


def _drain(fd: int, limit: int, deadline: float) -> bytes:
    """Read a pipe until it closes or `deadline` passes, keeping at most `limit` bytes."""
    kept, size = [], 0
    try:
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                break
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            if size < limit:
                kept.append(chunk[: limit - size])
                size += len(kept[-1])
    finally:
        os.close(fd)
    return b"".join(kept)


def _feed(pipe: object, request: bytes) -> None:
    """Write the request to the grading process's stdin and close it (a dead process is fine)."""
    with contextlib.suppress(OSError):
        pipe.write(request)
        pipe.close()


def _exited(pid: int, seconds: float) -> bool:
    """Whether the child `pid` has exited (not yet reaped) within `seconds`."""
    handle = os.pidfd_open(pid)
    try:
        return bool(select.select([handle], [], [], max(0.0, seconds))[0])
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
    (`autograder.inside.seccomp.PROCESSES`). Nothing the code does inside changes the figure.
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


def _end_sandbox(bwrap: int, uid: int | None) -> None:
    """Kill everything inside a sandbox whose outer bwrap is `bwrap`.

    As root every process of the sandbox's own uid is killed (the uid is this sandbox's alone, see
    `sandbox.Account`), by `kill -1` run as that uid: no pid is read and then signalled, so a pid
    reused in between is never hit. Otherwise the code kept our uid, and its pid 1 is the one child
    of bwrap: it has not changed uid, so it also dies with bwrap.
    """
    kill = shutil.which("kill", path="/usr/bin:/bin")
    if uid and kill:  # kill(-1) as that uid: every process of the uid but the kill itself
        subprocess.run([kill, "-KILL", "-1"], user=uid, group=uid, check=False)
        return
    inside = sandbox.sandbox_pid(bwrap)
    if inside is not None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(inside, signal.SIGKILL)
