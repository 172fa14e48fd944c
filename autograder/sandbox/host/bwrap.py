"""The operating-system sandbox around every run of student code: bubblewrap, an unprivileged uid, limits.

Each run gets new pid, ipc, uts, network and mount namespaces (no network at all); a read-only view
of the system, the Python installation and only those parts of the project it needs; one private
writable home and /tmp (size-limited tmpfs, in memory: nothing of them is on the host's disk), and
nothing else writable (the sandbox's own root is read-only); a
new session; limits on memory, CPU time, processes, open files and file size. When the grader runs
as root, the code runs as an unprivileged uid of its own (`Account`: one uid per sandbox from
UID_FIRST on, never shared by two sandboxes at once, so that the process limit, which Linux counts
per uid, is each sandbox's own), so the files of the machine are as closed to it as to any
stranger; otherwise it keeps the instructor's uid but sees only what is mounted. Killing the outer `bwrap` process ends the whole sandbox: its pid 1 is
bound to it (`--die-with-parent`; a grading process, its own pid 1 with `as_pid_1`, binds itself
the same way once its uid has changed), and the kernel kills every process of a pid namespace
whose pid 1 dies, so nothing a submission starts outlives its run.
"""

import contextlib
import fcntl
import functools
import os
import platform
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from autograder.paths import REPO
from autograder.sandbox.guest import seccomp
from autograder.sandbox.host.policy import HOME, sandbox_environment

NOBODY = 65534
UID_FIRST, UID_COUNT = 200_000, 4096  # the sandboxes' own uids: UID_FIRST + slot
UID_LOCKS = Path("/run/proof-lm-uids")  # root's: one lock file per uid in use
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
    home_bytes: int = 512 * 1024**2  # the private home, a tmpfs of this size
    tmp_bytes: int = 256 * 1024**2  # /tmp, likewise

    def apply(self) -> None:
        """Set the limits on this process (inherited by the sandbox); no core dumps."""
        for field, limit in RLIMITS.items():
            value = getattr(self, field)
            resource.setrlimit(limit, (value, value))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


RLIMITS = {  # the fields of Limits that are resource limits, and those limits
    "memory_bytes": resource.RLIMIT_AS,
    "cpu_seconds": resource.RLIMIT_CPU,
    "processes": resource.RLIMIT_NPROC,
    "open_files": resource.RLIMIT_NOFILE,
    "file_bytes": resource.RLIMIT_FSIZE,
}


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


class Account:
    """One sandbox's own uid while it runs (root only): UID_FIRST + the first slot free.

    A slot is taken by an exclusive `flock` on its file in UID_LOCKS (a folder only root can
    write), so two threads, two grading processes or two Dask workers never hold the same uid; the
    lock goes with the holder if it dies. A slot is skipped, and never given back, while any
    process of its uid is alive. Without root, `uid` is None: the code keeps the instructor's uid.
    """

    def __init__(self) -> None:
        self.uid: int | None = None
        self._lock: int | None = None
        if os.geteuid() == 0:
            self.uid, self._lock = _claim_uid()

    def release(self, wait: float = 10.0) -> None:
        """Give the uid back once no process of it is left (kept for good if some outlive `wait` s)."""
        if self._lock is None:
            return
        deadline = time.monotonic() + wait
        while _uid_running(self.uid):
            if time.monotonic() > deadline:
                self._lock = None  # leaked on purpose: that uid is never reused by this process
                return
            time.sleep(0.05)
        os.close(self._lock)
        self._lock = None

    def __enter__(self) -> "Account":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _lock_folder() -> Path:
    """UID_LOCKS, created if needed; refused unless it is root's own folder that nobody else may write."""
    with contextlib.suppress(FileExistsError):
        UID_LOCKS.mkdir(mode=0o700, parents=True)
    seen = os.lstat(UID_LOCKS)
    if not os.path.isdir(UID_LOCKS) or os.path.islink(UID_LOCKS) or seen.st_uid != 0:
        raise SandboxUnavailable(f"{UID_LOCKS} must be a folder of root's")
    if seen.st_mode & 0o022:
        raise SandboxUnavailable(f"{UID_LOCKS} must not be writable by others")
    return UID_LOCKS


def _claim_uid() -> tuple[int, int]:
    """The first free uid of the range and its lock's descriptor."""
    folder = _lock_folder()
    for slot in range(UID_COUNT):
        uid = UID_FIRST + slot
        fd = os.open(folder / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        if _uid_running(uid):  # an earlier holder's processes are still ending
            os.close(fd)
            continue
        return uid, fd
    raise SandboxUnavailable(f"all {UID_COUNT} sandbox uids are in use")


def _uid_running(uid: int) -> bool:
    """Whether any process of the machine has `uid` as its real uid."""
    wanted = f"Uid:\t{uid}\t"
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError), open(f"/proc/{entry.name}/status") as status:
                if any(line.startswith(wanted) for line in status):
                    return True
    return False


@contextlib.contextmanager
def account() -> Iterator[Account]:
    """A sandbox's own uid for the duration of the block (see `Account`)."""
    held = Account()
    try:
        yield held
    finally:
        held.release()


def bwrap_command(
    argv: list[str],
    readonly: Iterable[tuple[Path | str, str]] = (),
    writable: Iterable[tuple[Path | str, str]] = (),
    env: dict[str, str] | None = None,
    uid: int | None = None,
    limits: "Limits | None" = None,
    as_pid_1: bool = False,
) -> list[str]:
    """The bwrap command line that runs `argv` in a new sandbox, its home a fresh size-limited tmpfs.

    readonly / writable: (source on the host, path inside) pairs bound into the sandbox; nothing of
    the host is visible but these, the system and the Python installation. uid: the uid the code
    runs as when bwrap runs as root (an `Account`'s; nobody when not given).
    as_pid_1: `argv` is the sandbox's pid 1 (no bwrap reaper), so the outer bwrap waits for it and
    the kernel's CPU count of everything inside reaches whoever waits for bwrap; the caller must then
    end the sandbox by killing that pid 1 (`sandbox_pid`): it does not die with bwrap once it has
    changed uid, which clears its parent-death signal.
    """
    seen = view(readonly, writable)
    limits = limits or Limits()
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
        *(["--as-pid-1"] if as_pid_1 else []),
    ]
    for source, inside in seen.system:
        command += ["--ro-bind", source, inside]
    for target, path in seen.links:
        command += ["--symlink", target, path]
    command += ["--proc", "/proc", "--dev", "/dev"]
    command += ["--size", str(limits.tmp_bytes), "--perms", "1777", "--tmpfs", "/tmp"]
    for parent in seen.parents():
        command += ["--perms", "0755", "--dir", parent]
    for source, inside in seen.readonly:
        command += ["--ro-bind", source, inside]
    for source, inside in seen.writable:
        command += ["--bind", source, inside]
    # one uid inside, so the home may be open to all; it is in memory and no bigger than its size
    command += ["--size", str(limits.home_bytes), "--perms", "0777", "--tmpfs", HOME]
    # the sandbox's root is a tmpfs of no size limit whose folders (the mount points' parents) are
    # the code's own when it keeps our uid: read-only, so only the home and /tmp take writes
    command += ["--remount-ro", "/"]
    command += ["--chdir", HOME, "--clearenv"]
    for key, value in sandbox_environment(env).items():
        command += ["--setenv", key, value]
    if os.geteuid() == 0:  # bwrap mounts as root; the code itself runs without privileges
        uid = NOBODY if uid is None else uid
        command += [
            "--",
            "setpriv",
            f"--reuid={uid}",
            f"--regid={uid}",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--no-new-privs",
        ]
    return [*command, "--", *argv]


def sandbox_pid(bwrap_pid: int) -> int | None:
    """The pid (in our namespace) of the sandbox's pid 1: the one child of the outer bwrap, if alive."""
    with (
        contextlib.suppress(OSError),
        open(f"/proc/{bwrap_pid}/task/{bwrap_pid}/children") as found,
    ):
        children = found.read().split()
        return int(children[0]) if children else None
    return None


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
    if platform.machine() not in seccomp.ABIS:
        raise SandboxUnavailable(
            f"no seccomp filter for {platform.machine()} (see autograder.sandbox.guest.seccomp)"
        )
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        raise SandboxUnavailable("setpriv (util-linux) is needed to drop root inside the sandbox")
    done = subprocess.run(
        bwrap_command([sys.executable, "-I", "-c", "print('ok')"]),
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/",
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
