"""nbgrader's kernels in the OS sandbox: the kernel manager and the autograde preprocessors that use it.

Every notebook's kernel runs in its own sandbox (`autograder.wall.sandbox`): new namespaces, no network,
a uid of its own when grading as root (`sandbox.Account`), a private size-limited home, and none of
the course directory. Kernel and grading worker talk over Unix sockets in a folder of root's bound
into the sandbox: the kernel binds them as root and drops its privileges only after the folder is
sealed (`autograder.inside.kernel_boot`). A kernel lives at most NOTEBOOK_SECONDS (`timeout`, inside the
sandbox, as root), and no longer than its worker (`--die-with-parent`).

When the worker has a warm template (`Zygote`, started by the worker's Dask plugin when grading as
root), kernels are forked from it into a sandbox of the same kind (`autograder.wall.zygote`) instead of
starting cold under bwrap: the notebook's libraries are already imported.
"""

import asyncio
import contextlib
import dataclasses
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager

from autograder.wall import answer_key, policy, sandbox
from autograder.wall.paths import REPO

NOTEBOOK_SECONDS = int(os.environ.get("PROOF_LM_NOTEBOOK_SECONDS", "300"))
KERNEL_LIMITS = sandbox.Limits(memory_bytes=6 * 1024**3, cpu_seconds=NOTEBOOK_SECONDS)
BOOT = "autograder.inside.kernel_boot"  # the cold kernel's module: its settings, then the kernel's argv
SANDBOX_VARIABLE = "PROOF_LM_KERNEL_SANDBOX"  # "off" only with an instructor's --no-sandbox


class ForkedKernel:
    """A kernel forked by the template, seen from the worker (not its parent) like a Popen.

    It is held by a pidfd taken as soon as its pid is known, so that no signal can ever reach
    another process that reuses the number after it ends.
    """

    stdin = stdout = stderr = None  # nothing is piped: the template gave it /dev/null

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None
        try:
            self._pidfd: int | None = os.pidfd_open(pid)
        except ProcessLookupError:  # already gone
            self._pidfd, self.returncode = None, -1

    def poll(self) -> int | None:
        """None while the kernel's process lives, else -1 (its exit status went to the template)."""
        if self.returncode is None and select.select([self._pidfd], [], [], 0)[0]:
            self.returncode = -1
            os.close(self._pidfd)
            self._pidfd = None
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait until it is gone."""
        if self.returncode is None:
            if not select.select([self._pidfd], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired(str(self.pid), timeout or 0)
            self.poll()
        return -1

    def send_signal(self, signum: int) -> None:
        """Signal it, never another process (SIGKILL ends the sandbox: its pid 1 dies with it)."""
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self._pidfd, signum)

    def kill(self) -> None:
        """End it and its sandbox."""
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        """As kill: nothing in the sandbox needs a polite end."""
        self.kill()


class Zygote:
    """The worker's warm template (`python -m autograder.wall.zygote`), one request at a time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process = subprocess.Popen(
            [sys.executable, "-m", "autograder.wall.zygote"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"},
            cwd=REPO,
        )
        if self._process.stdout.readline().strip() != "ready":
            self.close()
            raise RuntimeError("the warm kernel template did not start")

    def spawn(self, request: dict) -> ForkedKernel:
        """Fork one sandboxed kernel (see `autograder.wall.zygote` for the request)."""
        with self._lock:
            if self._process.poll() is not None:
                raise RuntimeError("the warm kernel template has stopped")
            self._process.stdin.write(json.dumps(request) + "\n")
            self._process.stdin.flush()
            answer = self._process.stdout.readline()
            try:
                return ForkedKernel(int(json.loads(answer)["pid"]))
            except (ValueError, KeyError, TypeError):
                raise RuntimeError(
                    f"the warm kernel template has stopped ({answer[:100]!r})"
                ) from None

    def close(self) -> None:
        """Stop the template (its kernels die with it)."""
        self._process.kill()
        self._process.wait()


ZYGOTE: Zygote | None = None  # set by the worker's plugin when warm kernels can run


def start_zygote() -> None:
    """Start this worker's warm template where warm kernels can run (root on Linux)."""
    global ZYGOTE
    from autograder.wall import zygote

    if ZYGOTE is None and zygote.available() and sandbox.available():
        ZYGOTE = Zygote()


def stop_zygote() -> None:
    """Stop this worker's template."""
    global ZYGOTE
    if ZYGOTE is not None:
        ZYGOTE.close()
        ZYGOTE = None


class SandboxedKernelManager(AsyncKernelManager):
    """A kernel manager whose kernels run in their own OS sandbox, reached over Unix sockets."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self._sockets = tempfile.mkdtemp(prefix="proof-lm-kernel-")
        os.chmod(self._sockets, 0o755)  # the worker's: the kernel's uid may not write it
        self._account: sandbox.Account | None = None
        self.transport = "ipc"
        self.ip = os.path.join(self._sockets, "kernel")
        self.connection_file = os.path.join(self._sockets, "kernel.json")

    def account(self) -> sandbox.Account:
        """The uid this manager's kernel runs as, held until the kernel is gone."""
        if self._account is None:
            self._account = sandbox.Account()
        return self._account

    def boot_settings(self) -> dict:
        """What `autograder.inside.kernel_boot` needs: the uid to drop to, the folder to seal, the limits."""
        return {
            "uid": self.account().uid,
            "sockets": self._sockets,
            "limits": dataclasses.asdict(KERNEL_LIMITS),
        }

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        """The kernel's command line inside a sandbox that ends after NOTEBOOK_SECONDS."""
        command = super().format_kernel_cmd(extra_arguments)
        if os.environ.get(SANDBOX_VARIABLE) == "off":
            return command
        if "ipykernel_launcher" not in command:
            raise RuntimeError(f"not an IPython kernel: {command[:3]!r}")
        argv = command[command.index("ipykernel_launcher") + 1 :]
        boot = [command[0], "-m", BOOT, json.dumps(self.boot_settings())]
        return sandbox.bwrap_command(
            ["timeout", "--signal=KILL", str(NOTEBOOK_SECONDS), *boot, *argv],
            readonly=self._mounts(),
            writable=[(self._sockets, self._sockets)],
            env=policy.kernel_environment(),
            limits=KERNEL_LIMITS,
            drop=False,  # kernel_boot drops privileges itself, once its sockets are bound
        )

    async def _async_pre_start_kernel(self, **kwargs: object) -> tuple:
        """Interrupts go as messages (a signal to `timeout` would not reach the kernel); nobody reads the file."""
        command, kwargs = await super()._async_pre_start_kernel(**kwargs)
        # what the kernel prints outside its messages is never read, nor shown
        kwargs.update(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.kernel_spec.interrupt_mode = "message"
        os.chmod(self.connection_file, 0o600)  # read by the kernel while it is still root
        return command, kwargs

    def _mounts(self) -> list[tuple[Path, str]]:
        """What a kernel sees of the project: the library, the data, the grader's kernel module."""
        return [
            *sandbox.project_mounts("proof_lm", "data"),
            (answer_key.kernel_package(), str(REPO / "autograder")),
        ]

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: object) -> None:
        """Fork the kernel from the worker's warm template when there is one, else start it cold."""
        if ZYGOTE is None or os.environ.get(SANDBOX_VARIABLE) == "off":
            return await super()._async_launch_kernel(kernel_cmd, **kw)
        if BOOT not in kernel_cmd:  # the command is the cold sandbox's (format_kernel_cmd)
            return await super()._async_launch_kernel(kernel_cmd, **kw)
        argv = kernel_cmd[kernel_cmd.index(BOOT) + 2 :]  # after the module and its settings
        try:
            process = self._fork(argv)
        except (OSError, RuntimeError):  # the template died: start cold from now on
            stop_zygote()
            return await super()._async_launch_kernel(kernel_cmd, **kw)
        provisioner = self.provisioner
        # no process group: signals go through the pidfd only
        provisioner.process, provisioner.pid, provisioner.pgid = process, process.pid, None
        provisioner.cwd = kw.get("cwd", Path.cwd())
        self._reconcile_connection_info(provisioner.connection_info)
        return None

    def _fork(self, argv: list[str]) -> ForkedKernel:
        """Ask the template for a kernel with `argv` in a sandbox like the cold one."""
        return ZYGOTE.spawn(
            {
                "connection_file": self.connection_file,
                "argv": argv,
                "env": policy.kernel_environment(),
                "readonly": [(str(source), inside) for source, inside in self._mounts()],
                "seconds": NOTEBOOK_SECONDS,
                **self.boot_settings(),
            }
        )

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        """Also remove the socket folder and give the kernel's uid back (once nothing of it runs)."""
        await super()._async_cleanup_resources(restart=restart)
        if not restart:
            shutil.rmtree(self._sockets, ignore_errors=True)
            if self._account is not None:
                await asyncio.to_thread(self._account.release)
                self._account = None


def grading_preprocessors() -> list[type]:
    """nbgrader's autograde preprocessors: Execute with sandboxed kernels, then outputs capped."""
    from nbgrader.converters.autograde import Autograde
    from nbgrader.preprocessors import Execute

    from autograder.course.outputs import CapOutputs, budgeted

    class SandboxedExecute(budgeted(Execute)):
        """nbgrader's Execute (same configuration), its kernels started by SandboxedKernelManager."""

        def __init__(self, *args: object, **kwargs: object) -> None:
            kwargs.setdefault("kernel_manager_class", SandboxedKernelManager)
            super().__init__(*args, **kwargs)

    default = Autograde.class_traits()["autograde_preprocessors"].default()
    steps = []
    for step in default:
        steps.append(SandboxedExecute if step is Execute else step)
        if step is Execute:
            steps.append(CapOutputs)
    return steps
