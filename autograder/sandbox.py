"""The operating-system sandbox around every run of student code: bubblewrap, an unprivileged uid, limits.

Each run gets new pid, ipc, uts, network and mount namespaces (no network at all); a read-only view
of the system, the Python installation and only those parts of the project it needs; one private
writable directory; a new session; limits on memory, CPU time, processes, open files and file size.
When the grader runs as root, the code runs as the unprivileged uid 65534 (nobody), so the files
of the machine are as closed to it as to any stranger; otherwise it keeps the instructor's uid but
sees only what is mounted. Killing the outer `bwrap` process ends the whole sandbox: its pid 1 is
bound to it (`--die-with-parent`), and the kernel kills every process of a pid namespace whose
pid 1 dies, so nothing a submission starts outlives its run.
"""

import functools
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
NOBODY = 65534
HOME = "/home/student"
INSTALL_HINT = (
    "bubblewrap (bwrap) is not installed: install it with `apt-get install bubblewrap` "
    "(Debian/Ubuntu), `dnf install bubblewrap` (Fedora) or `pacman -S bubblewrap` (Arch)"
)


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or cannot create namespaces on this machine."""


@dataclass(frozen=True)
class Limits:
    """Resource limits applied to everything inside one sandbox."""

    memory_bytes: int = 3 * 1024**3
    cpu_seconds: int = 120
    processes: int = 256
    open_files: int = 256
    file_bytes: int = 64 * 1024**2

    def apply(self) -> None:
        """Set the limits on this process (inherited by the sandbox)."""
        for limit, value in (
            (resource.RLIMIT_AS, self.memory_bytes),
            (resource.RLIMIT_CPU, self.cpu_seconds),
            (resource.RLIMIT_NPROC, self.processes),
            (resource.RLIMIT_NOFILE, self.open_files),
            (resource.RLIMIT_FSIZE, self.file_bytes),
            (resource.RLIMIT_CORE, 0),
        ):
            resource.setrlimit(limit, (value, value))

    def command(self) -> list[str]:
        """The same limits as a `prlimit` prefix, for processes started by code we do not control."""
        return [
            "prlimit",
            f"--as={self.memory_bytes}",
            f"--cpu={self.cpu_seconds}",
            f"--nproc={self.processes}",
            f"--nofile={self.open_files}",
            f"--fsize={self.file_bytes}",
            "--core=0",
            "--",
        ]


@dataclass(frozen=True)
class View:
    """What a sandbox sees of the host: read-only binds, writable binds and symbolic links."""

    system: list[tuple[str, str]]  # (source on the host, path inside), read-only: /usr, /etc, ...
    links: list[tuple[str, str]]  # (target, path inside): the merged-/usr links
    readonly: list[tuple[str, str]]  # the Python installation and the project's parts
    writable: list[tuple[str, str]]

    def parents(self) -> list[str]:
        """Directories to create (0755) above every mount point, outermost first."""
        found: set[str] = set()
        for inside in [*(i for _, i in self.readonly + self.writable), HOME]:
            for parent in Path(inside).parents:
                if str(parent) not in ("/", "/usr", "/etc", "/tmp", "/proc", "/dev"):
                    found.add(str(parent))
        return sorted(found, key=lambda p: p.count("/"))


def view(
    readonly: Iterable[tuple[Path | str, str]] = (),
    writable: Iterable[tuple[Path | str, str]] = (),
) -> View:
    """What sandboxed code sees: the system, the Python installation and `readonly` read-only; `writable`."""
    system = [("/usr", "/usr"), ("/etc", "/etc")]
    links = []
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/", name)
        if path.is_symlink():
            links.append((os.readlink(path), str(path)))
        elif path.is_dir():
            system.append((str(path), str(path)))
    python = {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()}
    python.add(Path(sys.executable).resolve().parent.parent)
    return View(
        system=system,
        links=links,
        readonly=[(str(path), str(path)) for path in sorted(python)]
        + [(str(source), inside) for source, inside in readonly],
        writable=[(str(source), inside) for source, inside in writable],
    )


def environment(env: dict[str, str] | None = None) -> dict[str, str]:
    """The whole environment of sandboxed code: nothing of the grader's, plus `env`."""
    return {
        "HOME": HOME,
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "TMPDIR": "/tmp",
        "MPLCONFIGDIR": f"{HOME}/.matplotlib",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        **(env or {}),
    }


def bwrap_command(
    argv: list[str],
    workdir: Path,
    readonly: Iterable[tuple[Path | str, str]] = (),
    writable: Iterable[tuple[Path | str, str]] = (),
    env: dict[str, str] | None = None,
) -> list[str]:
    """The bwrap command line that runs `argv` in a new sandbox with `workdir` as its home.

    readonly / writable: (source on the host, path inside) pairs bound into the sandbox; nothing of
    the host is visible but these, the system, the Python installation and `workdir`.
    """
    seen = view(readonly, writable)
    command = [
        shutil.which("bwrap") or "bwrap",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-net",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        "--hostname",
        "sandbox",
    ]
    for source, inside in seen.system:
        command += ["--ro-bind", source, inside]
    for target, path in seen.links:
        command += ["--symlink", target, path]
    command += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    for parent in seen.parents():
        command += ["--perms", "0755", "--dir", parent]
    for source, inside in seen.readonly:
        command += ["--ro-bind", source, inside]
    for source, inside in seen.writable:
        command += ["--bind", source, inside]
    command += ["--bind", str(workdir), HOME, "--chdir", HOME, "--clearenv"]
    for key, value in environment(env).items():
        command += ["--setenv", key, value]
    if (
        os.geteuid() == 0
    ):  # bwrap mounts as root; the code itself runs as nobody, without privileges
        command += [
            "--",
            "setpriv",
            f"--reuid={NOBODY}",
            f"--regid={NOBODY}",
            "--clear-groups",
            "--inh-caps=-all",
            "--no-new-privs",
        ]
    return [*command, "--", *argv]


class PrivateDir:
    """A fresh directory the sandboxed uid may write (the sandbox's home), removed with `rm -rf`.

    Student code may fill it with anything (thousands of nested folders defeat shutil.rmtree's
    recursion), so removal is left to rm, which has no depth limit.
    """

    def __init__(self, prefix: str) -> None:
        self.name = tempfile.mkdtemp(prefix=prefix)
        if os.geteuid() == 0:
            os.chown(self.name, NOBODY, NOBODY)

    def __enter__(self) -> str:
        return self.name

    def __exit__(self, *exc: object) -> None:
        self.cleanup()

    def cleanup(self) -> None:
        """Remove the directory and everything in it."""
        subprocess.run(
            [shutil.which("rm") or "/bin/rm", "-rf", "--one-file-system", self.name], check=False
        )


def private_dir(prefix: str) -> PrivateDir:
    """A fresh directory the sandboxed uid may write: the sandbox's home."""
    return PrivateDir(prefix)


def preexec(limits: Limits) -> Callable[[], None]:
    """What runs in the child before bwrap starts: its own session, then the limits."""

    def setup() -> None:
        os.setsid()
        limits.apply()

    return setup


@functools.cache
def check_available() -> None:
    """Raise SandboxUnavailable with install instructions unless a trivial sandbox runs here."""
    if shutil.which("bwrap") is None:
        raise SandboxUnavailable(INSTALL_HINT)
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        raise SandboxUnavailable("setpriv (util-linux) is needed to drop root inside the sandbox")
    with private_dir("proof-lm-probe-") as work:
        done = subprocess.run(
            bwrap_command([sys.executable, "-I", "-c", "print('ok')"], Path(work)),
            capture_output=True,
            text=True,
            timeout=60,
        )
    if done.returncode != 0 or done.stdout.strip() != "ok":
        raise SandboxUnavailable(
            f"bubblewrap is installed but cannot create a sandbox here: {done.stderr.strip()[-500:]}"
            " (are unprivileged user namespaces disabled? see README: Grading safely)"
        )


def available() -> bool:
    """True when `check_available` passes."""
    try:
        check_available()
    except SandboxUnavailable:
        return False
    return True


def project_mounts(*parts: str) -> list[tuple[Path, str]]:
    """Read-only binds of some top-level parts of the project (e.g. "proof_lm", "data"), at their paths."""
    return [(REPO / part, str(REPO / part)) for part in parts]
