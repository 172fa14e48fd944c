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
                argv, readonly=answer_key.mounts(exercise), uid=account.uid, limits=limits
            )
            if sandboxed
            else argv
        )
        env = policy.grading_launch(os.environ)
        deadline = time.monotonic() + timeout
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
                try:
                    returncode = process.wait(timeout=max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    returncode = None
                _end(process)
                return ChildRun(returncode, result.result(), stderr.result())


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


def _end(process: subprocess.Popen) -> None:
    """End the grading process and everything it started: its group, and with bwrap its pid namespace."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        process.kill()
    process.wait()
