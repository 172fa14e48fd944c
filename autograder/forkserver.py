"""A fork server: one template process imports what its children need, then forks one child per request.

Grading starts many short-lived Python processes that all import the same heavy modules (NumPy,
IPython, PyTorch, ipykernel). A template imports them once and waits; each child is a fork of
it — a new process with its own copy of memory that no other child has touched — ready in
milliseconds. The template never runs a request's code itself.

Whoever would have started a process starts a `relay` instead (a few milliseconds: it imports only
the standard library). The relay hands the template its command line, environment, working
directory and chosen file descriptors (standard streams, pipes), forwards signals to the child and
exits as the child exits, so that a `subprocess.Popen` or a Jupyter kernel manager can treat it
as the process itself. A killed relay takes its child along; a template whose parent closes its
stdin kills every child and exits.

    python -m autograder.forkserver serve SOCKET MODULE        # MODULE.preload(), then serve
    python -m autograder.forkserver relay SOCKET FDS ARGS...   # FDS: descriptors to hand over, "0,1,2"

In each child the template calls MODULE.run_forked(request) after taking over the relay's
descriptors, directory and environment (request: {"argv", "env", "cwd"}); it must not return.
"""

import atexit
import contextlib
import fcntl
import importlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Iterator
from dataclasses import dataclass

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1)


@dataclass
class _Child:
    """A forked child and the relay that stands in for it."""

    relay: socket.socket
    relay_fd: int
    pid: int
    pidfd: int  # readable once the child has ended


def _take_over(numbers: list[int], received: list[int], held: list) -> None:
    """In the child: drop the template's sockets and put each received descriptor at its number."""
    for item in held:
        os.close(item.detach() if isinstance(item, socket.socket) else item)
    above = max(numbers) + 1  # parked out of the way of every target number
    parked = [fcntl.fcntl(fd, fcntl.F_DUPFD, above) for fd in received]
    for fd in received:
        os.close(fd)
    for number, fd in zip(numbers, parked, strict=True):
        os.dup2(fd, number)
        os.close(fd)


def _become(module: object, request: dict, received: list[int], held: list) -> None:
    """In the forked child: take the relay's descriptors, environment and directory; run; exit."""
    code = 1
    try:
        _take_over(request["fds"], received, held)
        os.setsid()
        for number in FORWARDED:
            signal.signal(number, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = request["argv"]
        module.run_forked(request)
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def kill(pid: int) -> None:
    """Kill a child and everything it started (its own session)."""
    for signal_group in (os.killpg, os.kill):  # its session, and itself should it have none yet
        with contextlib.suppress(ProcessLookupError, PermissionError):
            signal_group(pid, signal.SIGKILL)


def serve(path: str, module_name: str) -> None:
    """The template: preload, then fork a child for every relay that connects, until stdin closes."""
    module = importlib.import_module(module_name)
    module.preload()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path)
    listener.listen(16)
    print("ready", flush=True)
    children: dict[int, _Child] = {}  # by the relay's fd and by the pidfd
    try:
        while True:
            readable, _, _ = select.select([0, listener, *children], [], [])
            if 0 in readable and not os.read(0, 1024):
                return  # the parent has gone
            if listener in readable:
                relay, _ = listener.accept()
                message, received, _, _ = socket.recv_fds(relay, 1 << 20, 16)
                request = json.loads(message)
                if len(received) != len(request["fds"]):
                    for fd in received:
                        os.close(fd)
                    relay.close()
                    continue
                others = list({id(c): c for c in children.values()}.values())
                pid = os.fork()
                if pid == 0:
                    held = [listener, relay, *(c.relay for c in others), *(c.pidfd for c in others)]
                    _become(module, request, received, held)
                for fd in received:
                    os.close(fd)
                child = _Child(relay, relay.fileno(), pid, os.pidfd_open(pid))
                relay.send(str(pid).encode())
                children[child.relay_fd] = children[child.pidfd] = child
            for fd in readable:
                child = children.get(fd) if isinstance(fd, int) else None
                if child is None:
                    continue
                if fd == child.pidfd:  # the child ended: tell its relay how, forget both
                    _, status = os.waitpid(child.pid, 0)
                    with contextlib.suppress(OSError):
                        child.relay.send(str(os.waitstatus_to_exitcode(status)).encode())
                    children.pop(child.relay_fd, None)
                    del children[child.pidfd]
                    child.relay.close()
                    os.close(child.pidfd)
                elif not child.relay.recv(64):  # the relay was killed: so is its child
                    kill(child.pid)
                    del children[child.relay_fd]  # its pidfd reports the end
    finally:
        for child in children.values():
            kill(child.pid)
        listener.close()
        os.unlink(path)


def relay(path: str, fds: list[int], argv: list[str]) -> None:
    """Stand in for one child: have the template fork it, forward signals, exit as it exits."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    connection.connect(path)
    request = {"argv": argv, "env": dict(os.environ), "cwd": os.getcwd(), "fds": fds}
    socket.send_fds(connection, [json.dumps(request).encode()], fds)
    pid = int(connection.recv(64))
    for number in FORWARDED:
        signal.signal(number, lambda sent, _frame: os.kill(pid, sent))
    reply = connection.recv(64)
    code = int(reply) if reply else 1
    if code < 0:  # the child was killed by a signal: so is the relay
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code)


def start(path: str, module: str, flags: tuple[str, ...] = ()) -> subprocess.Popen:
    """Start a template for `module` (Python run with `flags`) listening at `path`, once it is ready.

    Close the returned process's stdin to stop it (it kills any child still running). Raises
    RuntimeError where it cannot work (it needs Linux's pidfd_open and SOCK_SEQPACKET).
    """
    if not (hasattr(os, "pidfd_open") and hasattr(socket, "SOCK_SEQPACKET")):
        raise RuntimeError("a fork server needs Linux 5.3 or later")
    template = subprocess.Popen(
        [sys.executable, *flags, "-m", "autograder.forkserver", "serve", path, module],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    if template.stdout.readline().strip() != "ready":
        raise RuntimeError(f"the fork server for {module} did not start")
    return template


@contextlib.contextmanager
def serving(module: str, flags: tuple[str, ...] = ()) -> Iterator[str | None]:
    """A template for `module` while the block runs: its socket path, or None where none can start."""
    with tempfile.TemporaryDirectory(prefix="proof-lm-forks-") as folder:
        path = os.path.join(folder, "template.sock")
        try:
            template = start(path, module, flags)
        except (OSError, RuntimeError) as error:  # the caller starts its processes anew
            print(f"{module}: processes start anew ({error})", file=sys.stderr)
            yield None
            return
        try:
            yield path
        finally:
            template.stdin.close()
            template.wait()


def relay_command(path: str, fds: list[int], argv: list[str]) -> list[str]:
    """The command line of a relay that has the template at `path` run `argv`."""
    return [
        sys.executable,
        "-I",
        "-B",
        "-m",
        "autograder.forkserver",
        "relay",
        path,
        ",".join(map(str, fds)),
        *argv,
    ]


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(sys.argv[2], sys.argv[3])
    else:
        relay(sys.argv[2], [int(fd) for fd in sys.argv[3].split(",")], sys.argv[4:])
