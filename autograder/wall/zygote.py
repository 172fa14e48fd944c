"""Warm kernels: a template that has imported the notebooks' libraries once forks each kernel into a sandbox.

    python -m autograder.wall.zygote        (started by a grading worker, as root; JSON lines on stdin/stdout)

A fresh kernel spends a second or two importing IPython, NumPy, PyTorch and the library before the
notebook's first cell is done. This template imports them once, then for each request forks a
child that builds a sandbox of its own before any student code exists in it, as bubblewrap does:
new mount, pid, network, ipc and uts namespaces; a new root holding only the system, the Python
installation and the given project parts read-only, the kernel's socket folder, a private home and
a fresh /tmp (size-limited tmpfs), /dev and /proc; then the kernel binds its sockets, their folder
is sealed and it becomes the uid of its request (no capabilities, `no_new_privs`, the limits: see
`autograder.inside.kernel_boot`). The template never runs student code, and a kernel cannot reach it or another kernel: each
is pid 1 of its own pid namespace, in its own mount namespace. It needs root (mounts without a user
namespace); elsewhere kernels start cold under bwrap (`autograder.course.kernels`).

Requests: {"connection_file", "sockets", "uid", "argv", "env", "readonly", "seconds", "limits"};
the answer is {"pid": ...}, the pid of the child that waits for the kernel and ends it after
`seconds` (killing it ends the kernel and everything it started).
"""

import ctypes
import json
import os
import platform
import signal
import sys
from pathlib import Path

from autograder.inside import kernel_boot
from autograder.wall import policy, sandbox

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG = 1
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
WARM = (  # what every notebook imports first
    "IPython",
    "ipykernel.kernelapp",
    "ipykernel.ipkernel",
    "numpy",
    "matplotlib",
    "matplotlib.pyplot",  # the backend itself loads in the kernel, with its display hooks
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "tqdm.auto",
    "proof_lm.baselines",
    "proof_lm.corpus",
    "proof_lm.gpt",
    "proof_lm.metrics",
    "proof_lm.ngram",
    "proof_lm.nplm",
    "proof_lm.sampling",
    "proof_lm.training",
    "proof_lm.vocab",
    "proof_lm.windows",
)

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


def _mount(source: str, target: str, kind: str | None, flags: int, data: str = "") -> None:
    _check(
        _libc.mount(
            source.encode(), target.encode(), kind.encode() if kind else None, flags, data.encode()
        ),
        f"mount {source} on {target}",
    )


def _bind(source: str, target: str, readonly: bool, devices: bool = False) -> None:
    """Bind `source` at `target` (a file or a folder), read-only unless told otherwise, nosuid, nodev."""
    if Path(source).is_dir():
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        Path(target).touch()
    _mount(source, target, None, MS_BIND | MS_REC)
    flags = MS_REMOUNT | MS_BIND | MS_NOSUID | (0 if devices else MS_NODEV)
    flags |= MS_RDONLY if readonly else 0
    _mount("none", target, None, flags)


def available() -> bool:
    """Whether warm kernels can run here: root on Linux, on an architecture whose pivot_root we know."""
    return os.geteuid() == 0 and sys.platform == "linux" and platform.machine() in PIVOT_ROOT


def _new_root(root: str, request: dict) -> None:
    """Build the sandbox's file system under `root` (a fresh tmpfs) and make it `/`."""
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=16m")
    seen = sandbox.view(request["readonly"], [(request["sockets"], request["sockets"])])
    limits, uid = request["limits"], request["uid"]
    for folder, options in (  # first: binds may lie below
        ("/tmp", f"mode=1777,size={limits['tmp_bytes']}"),
        ("/dev/shm", "mode=1777,size=64m"),
        (policy.HOME, f"mode=0700,uid={uid},gid={uid},size={limits['home_bytes']}"),
    ):
        os.makedirs(root + folder, exist_ok=True)
        _mount("tmpfs", root + folder, "tmpfs", MS_NOSUID | MS_NODEV, options)
    for source, inside in seen.system + seen.readonly:
        _bind(source, root + inside, readonly=True)
    for target, path in seen.links:
        os.symlink(target, root + path)
    for source, inside in seen.writable:
        _bind(source, root + inside, readonly=False)
    for name in DEVICES:
        _bind(f"/dev/{name}", f"{root}/dev/{name}", readonly=False, devices=True)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0")):
        os.symlink(target, f"{root}/dev/{name}")
    os.makedirs(root + "/proc", exist_ok=True)
    _mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    old = root + "/.old"
    os.makedirs(old)
    _check(_libc.syscall(PIVOT_ROOT[platform.machine()], root.encode(), old.encode()), "pivot_root")
    os.chdir("/")
    _check(_libc.umount2(b"/.old", MNT_DETACH), "umount the host's root")
    os.rmdir("/.old")


def _kernel(request: dict, waiter: int) -> None:
    """In the sandbox's pid 1: finish the sandbox, then run the kernel in this (warm) process.

    `waiter`: the read end of a pipe whose write end only the waiting parent holds (end of file:
    the parent is gone).
    """
    import random
    import select

    _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "parent-death signal")
    _libc.sethostname(b"sandbox", 7)
    _new_root(request["root"], request)
    os.environ.clear()
    os.environ.update(policy.sandbox_environment(request["env"]))
    os.chdir(policy.HOME)
    boot = kernel_boot.boot
    for name in [m for m in sys.modules if m == "autograder" or m.startswith("autograder.")]:
        del sys.modules[name]  # the kernel imports the grader from its own (mounted) copy
    sys.path[:] = [p for p in sys.path if p and Path(p).exists()]
    random.seed()
    import numpy as np

    np.random.seed()

    def dropped() -> None:
        # again after the drop (changing uid clears it): when the waiting parent dies (killed, or
        # at the end of its seconds), this pid 1 dies, and with it every process of the namespace.
        # If it died before this line, no signal will come: its pipe says so.
        _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "parent-death signal")
        if select.select([waiter], [], [], 0)[0]:
            os._exit(1)
        os.close(waiter)

    settings = {key: request[key] for key in ("uid", "sockets", "limits")}
    boot(request["argv"], settings, policy.HOME, dropped)


def _child(request: dict) -> None:
    """The forked child: new namespaces, then the kernel as pid 1, ended after `seconds`."""
    os.setsid()
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.closerange(3, 65536)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the template ignores it: that hides exits
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
    _check(_libc.unshare(flags), "unshare")
    _mount("none", "/", None, MS_REC | MS_PRIVATE)
    alive_read, alive_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(alive_write)
            _kernel(request, alive_read)
        finally:
            os._exit(1)
    os.close(alive_read)
    signal.signal(signal.SIGALRM, lambda *_: os.kill(pid, signal.SIGKILL))
    signal.alarm(int(request["seconds"]))
    _, status = os.waitpid(pid, 0)
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def main() -> None:
    """Import the warm modules, say so, then fork one sandboxed kernel per request."""
    import importlib
    import tempfile

    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # ends with its grading worker
    os.environ.update(policy.template_environment())
    for name in WARM:
        importlib.import_module(name)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the system
    root = tempfile.mkdtemp(prefix="proof-lm-kernel-root-")  # a mount point, private to each child
    print("ready", flush=True)
    for line in sys.stdin:
        request = {**json.loads(line), "root": root}
        pid = os.fork()
        if pid == 0:
            try:
                _child(request)
            finally:
                os._exit(1)
        print(json.dumps({"pid": pid}), flush=True)


if __name__ == "__main__":
    main()
