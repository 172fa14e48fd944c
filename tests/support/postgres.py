"""A throwaway PostgreSQL server for the tests: Debian's `postgresql`, one cluster per test process.

`initdb` into a fresh temporary folder, `pg_ctl start` on a free loopback port with its socket in
that folder; the cluster is stopped and deleted when the tests end. PostgreSQL refuses to run as
root: as root (CI, containers) the cluster belongs to the `postgres` user that Debian's package
creates. `make test` installs the package where it may (root with apt-get, as in CI). Without it
the tests that need it skip, unless PROOF_LM_REQUIRE_POSTGRES=1 (set by .ci/run), which turns a
missing PostgreSQL into a failure.
"""

import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from support.load import free_port

DRIVER = "postgresql+psycopg"  # SQLAlchemy's name for PostgreSQL through psycopg 3


def _binaries() -> Path | None:
    """The folder of initdb and pg_ctl: on PATH, else Debian's newest /usr/lib/postgresql/N/bin."""
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    debian = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4])
    )
    return Path(debian[-1]).parent if debian else None


def _missing() -> str | None:
    """Why no cluster can be started here, or None."""
    if _binaries() is None:
        return "PostgreSQL is not installed (as root: apt-get install -y postgresql)"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (make venv)"
    if os.geteuid() == 0 and not _owner_exists():
        return "running as root, and there is no `postgres` user to own the cluster"
    return None


def _owner_exists() -> bool:
    """Whether the `postgres` user (Debian's package makes it) exists."""
    import pwd

    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return False
    return True


def require_postgres() -> None:
    """Skip (or fail when PROOF_LM_REQUIRE_POSTGRES=1) if no PostgreSQL cluster can be started."""
    reason = _missing()
    if reason is None:
        return
    if os.environ.get("PROOF_LM_REQUIRE_POSTGRES") == "1":
        pytest.fail(f"PostgreSQL tests required (PROOF_LM_REQUIRE_POSTGRES=1): {reason}")
    pytest.skip(reason)


@contextmanager
def cluster() -> Iterator[str]:
    """A running PostgreSQL cluster on a free loopback port: the URL of its `postgres` database."""
    binaries = _binaries()
    folder = Path(tempfile.mkdtemp(prefix="proof-lm-postgres-"))
    user = "postgres" if os.geteuid() == 0 else None  # PostgreSQL will not run as root
    if user:
        shutil.chown(folder, user)
    data, port = folder / "data", free_port()

    def run(*command: str) -> None:
        done = subprocess.run(command, user=user, capture_output=True, text=True, cwd=folder)
        assert done.returncode == 0, f"{command[0]}: {done.stdout[-2000:]}{done.stderr[-2000:]}"

    # trust: only this machine's loopback reaches the port, for the tests' lifetime; --no-sync and
    # fsync=off: a throwaway cluster need not survive a power cut (the server is killed, never it)
    run(str(binaries / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "--no-sync")
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    run(
        str(binaries / "pg_ctl"),
        "-D",
        str(data),
        "-l",
        str(folder / "log"),
        "-w",
        "-o",
        options,
        "start",
    )
    try:
        yield f"{DRIVER}://postgres@127.0.0.1:{port}/postgres"
    finally:
        run(str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(folder, ignore_errors=True)


def fresh_database(server: str, name: str) -> str:
    """A new, empty database `name` on the cluster at `server`: its URL."""
    import psycopg

    address = server.replace(f"{DRIVER}://", "postgresql://")
    with psycopg.connect(address, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return server.rsplit("/", 1)[0] + f"/{name}"
