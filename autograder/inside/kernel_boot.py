"""A notebook's kernel starting in its sandbox: its sockets bound as root, then privileges dropped.

    python -m autograder.inside.kernel_boot SETTINGS -f CONNECTION_FILE     (inside the sandbox, as root)

SETTINGS (JSON): {"uid", "sockets", "limits"}. The kernel's socket folder belongs to root and is
not writable by the kernel's uid; the kernel binds its sockets there while still root, the folder
is then remounted read-only, and only then does the kernel become `uid` (no capabilities, the kernel's
keyrings refused by `autograder.inside.seccomp`,
`no_new_privs`, the limits). Nothing inside the sandbox can afterwards create, remove or replace
an entry of that folder, so nothing can point the worker that connects to those sockets at
another socket of the host. No student code exists in the process before the drop: the kernel
receives code only once it is started. Used by cold kernels (bwrap as root) and by the warm
template (`autograder.wall.zygote`), which calls `boot` in its forked child. Without root there is no
uid to drop to and the folder is left as it is (see README: Grading safely).
"""

import ctypes
import json
import os
import resource
import sys
from collections.abc import Callable

from autograder.inside import seccomp

PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP = 38, 24
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND = 1, 2, 4, 8, 32, 4096
RLIMITS = {  # the fields of autograder.wall.sandbox.Limits, and their limits (the one home of that mapping)
    "memory_bytes": resource.RLIMIT_AS,
    "cpu_seconds": resource.RLIMIT_CPU,
    "processes": resource.RLIMIT_NPROC,
    "open_files": resource.RLIMIT_NOFILE,
    "file_bytes": resource.RLIMIT_FSIZE,
}

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


def seal(folder: str) -> None:
    """Remount `folder` (a bind mount) read-only: its entries stay as they are now."""
    flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC
    _check(_libc.mount(b"none", folder.encode(), None, flags, b""), f"remount {folder} read-only")


def give(home: str, uid: int) -> None:
    """Make `home` and everything in it (made while root) belong to `uid`."""
    os.chown(home, uid, uid)
    os.chmod(home, 0o700)
    for folder, names, files in os.walk(home):
        for name in names + files:
            os.lchown(os.path.join(folder, name), uid, uid)


def restrict() -> None:
    """Empty the capability bounding set and set no_new_privs (capabilities in effect stay until `drop`)."""
    for capability in range(64):
        _libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0)
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")


def drop(uid: int) -> None:
    """Become `uid` (gid the same, no groups): every thread, every capability gone."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)  # glibc changes every thread's ids; with them go all capabilities


def apply_limits(limits: dict) -> None:
    """The sandbox's resource limits on this process (inherited by all it starts)."""
    for field, limit in RLIMITS.items():
        resource.setrlimit(limit, (limits[field], limits[field]))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def boot(
    argv: list[str], settings: dict, home: str, dropped: Callable[[], None] | None = None
) -> None:
    """Bind the kernel's sockets, seal their folder, drop to the sandbox's uid, start the kernel.

    `dropped` runs once the privileges are gone, just before the kernel starts.
    """
    from ipykernel.kernelapp import IPKernelApp

    privileged = os.geteuid() == 0
    if privileged:
        restrict()  # before any thread exists: every thread the kernel starts inherits it
    seccomp.install()  # likewise: no kernel keyring for the kernel or anything it starts
    app = IPKernelApp.instance()
    app.initialize(argv)  # binds the sockets in settings["sockets"]; runs no student code
    if privileged:
        seal(settings["sockets"])
        give(home, settings["uid"])
        drop(settings["uid"])
    apply_limits(settings["limits"])
    if dropped is not None:
        dropped()
    app.start()


def main() -> None:
    """The cold kernel's entry point (see the module's docstring)."""
    if sys.path and sys.path[0] in (
        "",
        os.getcwd(),
    ):  # the home, the student's: as ipykernel_launcher
        del sys.path[0]
    settings = json.loads(sys.argv[1])
    boot(sys.argv[2:], settings, os.environ["HOME"])


if __name__ == "__main__":
    main()
