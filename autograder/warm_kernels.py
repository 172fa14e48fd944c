"""Grading kernels forked from a warm template, so that no kernel pays for importing PyTorch again.

nbgrader starts a new kernel for every notebook, and each one spends about 3 s of CPU importing
ipykernel, PyTorch and matplotlib before its first cell. A grading worker instead starts one
template (`serve`), which imports them once and then only waits; every kernel is a fork of it:
a new process with its own copy of memory, which no other submission's code has touched, ready in
milliseconds. The template itself never runs a line of a notebook.

jupyter_client manages a small `relay` process in place of the kernel (the kernel command of
`autograder.grading_worker.WarmKernelManager`): the relay hands the template its command line,
environment, working directory and standard streams, forwards signals (interrupts, terminations)
to the forked kernel and exits as the kernel exits. If the relay is killed, the template kills
its kernel; if the worker goes away, the template kills every kernel and exits.

    python -m autograder.warm_kernels serve SOCKET          # the template (started by the worker)
    python -m autograder.warm_kernels relay SOCKET ARGS...  # one kernel (started by jupyter_client)

Only the standard library is imported at the top: the relay must start in a few milliseconds.
"""

import atexit
import contextlib
import json
import os
import select
import signal
import socket
import sys
import traceback
from dataclasses import dataclass

SOCKET_VARIABLE = "PROOF_LM_KERNEL_TEMPLATE"  # where a worker's template listens
# What the chapters' set-up cells import, except modules that look at their surroundings when
# imported: proof_lm.demo reads the environment, tqdm.auto asks whether it runs in a kernel (and
# proof_lm.training and proof_lm.table_fit import it). Those are imported by the kernel itself.
PRELOAD = [
    "ipykernel.kernelapp",
    "ipykernel.ipkernel",
    "ipywidgets",
    "numpy",
    "torch",
    "torch.nn.functional",
    "matplotlib.pyplot",
    "matplotlib_inline.backend_inline",
    "tqdm.notebook",
    "proof_lm.backoff",
    "proof_lm.baselines",
    "proof_lm.data",
    "proof_lm.datasets",
    "proof_lm.embeddings",
    "proof_lm.gradcheck",
    "proof_lm.metrics",
    "proof_lm.ngram",
    "proof_lm.nplm",
    "proof_lm.sampling",
    "proof_lm.vocab",
    "autograder.kernel",
]
NOT_PRELOADED = ("proof_lm.demo", "tqdm.auto", "tqdm.autonotebook")
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1)


def _preload() -> None:
    """Import what every kernel would import, as a fresh ipykernel would see it."""
    import importlib

    if sys.path and sys.path[0] in ("", os.getcwd()):
        del sys.path[0]  # as ipykernel_launcher does; the kernel puts its own directory back
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    for name in PRELOAD:
        importlib.import_module(name)
    for name in NOT_PRELOADED:
        if name in sys.modules:
            raise RuntimeError(f"the template must not import {name}: it depends on where it runs")


def _integrate() -> None:
    """What matplotlib's inline backend and ipywidgets do when first imported inside a kernel."""
    from ipywidgets import _handle_ipython
    from matplotlib_inline.backend_inline import _enable_matplotlib_integration

    _enable_matplotlib_integration()  # shows figures after each cell
    _handle_ipython()  # lets a front end ask for widgets' state


def _become_kernel(request: dict, stdio: list[int], sockets: list, pidfds: list[int]) -> None:
    """In the forked child: take the relay's streams, environment and directory, run ipykernel, exit."""
    code = 1
    try:
        for held in sockets:  # the template's sockets are not the kernel's
            os.close(held.detach())
        for fd in pidfds:
            os.close(fd)
        os.setsid()
        for target, fd in zip((0, 1, 2), stdio, strict=True):
            os.dup2(fd, target)
            os.close(fd)
        for number in FORWARDED:
            signal.signal(number, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = request["argv"]
        from ipykernel import kernelapp

        arguments = request["argv"][1:]
        if request["env"].get("JPY_PARENT_PID", "").isdigit():  # read at import, in the template
            arguments.append(f"--IPKernelApp.parent_handle={request['env']['JPY_PARENT_PID']}")
        app = kernelapp.IPKernelApp.instance()
        app.initialize(arguments)
        _integrate()
        app.start()
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


@dataclass
class _Kernel:
    """A forked kernel and the relay that stands in for it."""

    relay: socket.socket
    relay_fd: int
    pid: int
    pidfd: int  # readable once the kernel has ended


def serve(path: str) -> None:
    """The template: preload, then fork a kernel for every relay that connects, until stdin closes."""
    _preload()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path)
    listener.listen(8)
    print("ready", flush=True)
    kernels: dict[int, _Kernel] = {}  # by the relay's fd and by the pidfd
    try:
        while True:
            readable, _, _ = select.select([0, listener, *kernels], [], [])
            if 0 in readable and not os.read(0, 1024):
                return  # the worker has gone
            if listener in readable:
                relay, _ = listener.accept()
                message, fds, _, _ = socket.recv_fds(relay, 1 << 20, 3)
                if len(fds) != 3:
                    relay.close()
                    continue
                others = {id(k): k for k in kernels.values()}.values()
                pid = os.fork()
                if pid == 0:
                    _become_kernel(
                        json.loads(message),
                        fds,
                        [listener, relay, *(k.relay for k in others)],
                        [k.pidfd for k in others],
                    )
                for fd in fds:
                    os.close(fd)
                kernel = _Kernel(relay, relay.fileno(), pid, os.pidfd_open(pid))
                relay.send(str(pid).encode())
                kernels[kernel.relay_fd] = kernels[kernel.pidfd] = kernel
            for fd in readable:
                kernel = kernels.get(fd) if isinstance(fd, int) else None
                if kernel is None:
                    continue
                if fd == kernel.pidfd:  # the kernel ended: tell its relay how, forget both
                    _, status = os.waitpid(kernel.pid, 0)
                    with contextlib.suppress(OSError):
                        kernel.relay.send(str(os.waitstatus_to_exitcode(status)).encode())
                    kernels.pop(kernel.relay_fd, None)
                    del kernels[kernel.pidfd]
                    kernel.relay.close()
                    os.close(kernel.pidfd)
                elif not kernel.relay.recv(64):  # the relay was killed: so is its kernel
                    _kill(kernel.pid)
                    del kernels[kernel.relay_fd]  # its pidfd reports the end
    finally:
        for kernel in kernels.values():
            _kill(kernel.pid)
        listener.close()
        os.unlink(path)


def _kill(pid: int) -> None:
    """Kill a kernel and anything it started (its own session)."""
    for kill in (os.killpg, os.kill):  # its session, and itself should it not have one yet
        with contextlib.suppress(ProcessLookupError, PermissionError):
            kill(pid, signal.SIGKILL)


def relay(path: str, argv: list[str]) -> None:
    """Stand in for one kernel: have the template fork it, forward signals, exit as it exits."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    connection.connect(path)
    request = {"argv": ["ipykernel_launcher", *argv], "env": dict(os.environ), "cwd": os.getcwd()}
    socket.send_fds(connection, [json.dumps(request).encode()], [0, 1, 2])
    pid = int(connection.recv(64))
    for number in FORWARDED:
        signal.signal(number, lambda sent, _frame: os.kill(pid, sent))
    reply = connection.recv(64)
    code = int(reply) if reply else 1
    if code < 0:  # the kernel was killed by a signal: so is the relay
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code)


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(sys.argv[2])
    else:
        relay(sys.argv[2], sys.argv[3:])
