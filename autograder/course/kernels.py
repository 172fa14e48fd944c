"""nbgrader's kernels in the OS sandbox: the kernel manager and the autograde preprocessors that use it.

Every notebook's kernel runs in its own sandbox (`autograder.sandbox`): new namespaces, no network,
uid nobody when grading as root, a private home, and none of the course directory. Kernel and
grading worker talk over Unix sockets in a directory bound into the sandbox. A kernel lives at most
NOTEBOOK_SECONDS (`timeout`, inside the sandbox), and no longer than its worker (`--die-with-parent`).
"""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager

from autograder import answer_key, sandbox
from autograder.kernel import HIDDEN_CHECKS

NOTEBOOK_SECONDS = int(os.environ.get("PROOF_LM_NOTEBOOK_SECONDS", "300"))
KERNEL_LIMITS = sandbox.Limits(memory_bytes=6 * 1024**3, cpu_seconds=NOTEBOOK_SECONDS)
SANDBOX_VARIABLE = "PROOF_LM_KERNEL_SANDBOX"  # "off" only with an instructor's --no-sandbox


class SandboxedKernelManager(AsyncKernelManager):
    """A kernel manager whose kernels run in their own OS sandbox, reached over Unix sockets."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self._sockets = tempfile.mkdtemp(prefix="proof-lm-kernel-")
        self._home = sandbox.private_dir("proof-lm-kernel-home-")
        if os.geteuid() == 0:
            os.chown(self._sockets, sandbox.NOBODY, sandbox.NOBODY)
        self.transport = "ipc"
        self.ip = os.path.join(self._sockets, "kernel")
        self.connection_file = os.path.join(self._sockets, "kernel.json")

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        """The kernel's command line inside a sandbox that ends after NOTEBOOK_SECONDS."""
        command = super().format_kernel_cmd(extra_arguments)
        if os.environ.get(SANDBOX_VARIABLE) == "off":
            return command
        return sandbox.bwrap_command(
            [*KERNEL_LIMITS.command(), "timeout", "--signal=KILL", str(NOTEBOOK_SECONDS), *command],
            Path(self._home.name),
            readonly=[
                *sandbox.project_mounts("proof_lm", "data"),
                (answer_key.kernel_package(), str(sandbox.REPO / "autograder")),
            ],
            writable=[(self._sockets, self._sockets)],
            env={
                "NBGRADER_EXECUTION": "autograde",
                HIDDEN_CHECKS: os.environ.get(HIDDEN_CHECKS, ""),
                "MPLBACKEND": "module://matplotlib_inline.backend_inline",
            },
        )

    async def _async_pre_start_kernel(self, **kwargs: object) -> tuple:
        """Interrupts go as messages (a signal to `timeout` would not reach the kernel); nobody reads the file."""
        command, kwargs = await super()._async_pre_start_kernel(**kwargs)
        # what the kernel prints outside its messages is never read, nor shown
        kwargs.update(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.kernel_spec.interrupt_mode = "message"
        if os.geteuid() == 0:  # the kernel runs as nobody and must read its connection file
            os.chown(self.connection_file, sandbox.NOBODY, sandbox.NOBODY)
        return command, kwargs

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        """Also remove the socket directory and the kernel's home."""
        await super()._async_cleanup_resources(restart=restart)
        if not restart:
            shutil.rmtree(self._sockets, ignore_errors=True)
            self._home.cleanup()


def grading_preprocessors() -> list[type]:
    """nbgrader's autograde preprocessors: Execute with sandboxed kernels, then outputs capped."""
    from nbgrader.converters.autograde import Autograde
    from nbgrader.preprocessors import Execute

    from autograder.course.outputs import CapOutputs

    class SandboxedExecute(Execute):
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
