"""Shared paths and helpers for the test suites."""

import atexit
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import nbclient
import pytest

assert "numpy" not in sys.modules, "NumPy loaded before the conftest: its BLAS pool is already up"
import autograder  # noqa: F401, E402  first, before NumPy loads: one BLAS thread (see autograder/__init__.py)

REPO = Path(__file__).resolve().parent.parent
LECTURES_NAMES = REPO.parent / "shared" / "data" / "names.txt"
IMPLEMENTATIONS = REPO / "tests" / "implementations"
PYTHON = sys.executable


@pytest.fixture
def lectures_names() -> Path:
    """The makemore lectures' names.txt beside the project; skip when it is not there."""
    if not LECTURES_NAMES.is_file():
        pytest.skip("the lectures' names.txt is not beside the project")
    return LECTURES_NAMES


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """One throwaway PostgreSQL cluster per test process (support.postgres): its URL."""
    from support.postgres import cluster, require_postgres

    require_postgres()
    with cluster() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of a new, empty database: a SQLite file, then a database on the PostgreSQL cluster."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'submissions.db'}"
    from support.postgres import fresh_database

    return fresh_database(request.getfixturevalue("postgres_server"), f"test_{uuid.uuid4().hex}")


KIT_KERNEL = "proof-lm-kit"  # the kernel spec of the kit's own environment (kit_python)


@pytest.fixture(scope="session")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The student kit as `make student-kit` builds it, once per test process."""
    from autograder.kit.build import build_kit

    return build_kit(tmp_path_factory.mktemp("kit") / "student-kit")


@pytest.fixture(scope="session")
def kit_python(kit: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new venv with only the kit's requirements (linked from here), the kit and its kernel."""
    from support.kit_env import kit_environment

    return kit_environment(kit, tmp_path_factory.mktemp("env") / "venv", KIT_KERNEL)


_RELEASED: dict[tuple[str, ...], Path] = {}  # chapters -> a course released once in this process


def released_course(course: Path, *chapters: str) -> Path:
    """`course` as `release(course, chapters)` makes it (chapter 01 by default), copied from one
    real release per test process: nbgrader's generate_assignment and a new gradebook cost 3 s."""
    from support.simulate import copy_course

    from autograder.course.release import release

    chapters = chapters or ("01_bigram_counting",)
    if chapters not in _RELEASED:
        scratch = Path(tempfile.mkdtemp(prefix="proof-lm-released-")).resolve()
        atexit.register(shutil.rmtree, scratch, ignore_errors=True)
        release(scratch / "course", list(chapters))
        _RELEASED[chapters] = scratch / "course"
    return copy_course(_RELEASED[chapters], course)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The chapters' executions first (the longest tests: two minutes each for 08 and 09), then the
    other modules holding a slow test, then the rest; each module's tests together and in order.

    `make test` runs pytest-xdist with `--dist worksteal`: each worker takes half of this order and
    a worker that runs out takes half of what the other has not started. With the long tests at the
    front, what is left to share at the end is short, and both workers finish together.
    """
    slow = {item.module.__name__ for item in items if item.get_closest_marker("slow")}

    def rank(item: pytest.Item) -> int:
        name = item.module.__name__
        return 0 if name == "test_notebooks_execute" else 1 if name in slow else 2

    items.sort(key=rank)


def _sliced(get_msg: Callable[..., Awaitable[dict]]) -> Callable[..., Awaitable[dict]]:
    """`get_msg` polling a second at a time until its timeout (None: forever)."""
    from queue import Empty

    async def get(timeout: float | None = None) -> dict:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = 1.0 if deadline is None else min(1.0, max(0.0, deadline - time.monotonic()))
            try:
                return await get_msg(timeout=left)
            except Empty:
                if deadline is not None and time.monotonic() >= deadline:
                    raise

    return get


class NotebookClient(nbclient.NotebookClient):
    """nbclient's NotebookClient whose kernel client polls its shell and IOPub channels a second at
    a time.

    pyzmq's asyncio poller can miss a socket's edge-triggered wake-up; it then finds the message
    waiting only when the poll's timeout ends (measured here: an idle kernel, its reply queued,
    and a cell that waited out the whole 120-s or 300-s cell timeout before passing). Polls of a
    second bound what a missed wake-up costs to a second.
    """

    async def async_start_new_kernel_client(self) -> object:
        """The kernel client, its two channels' polls sliced."""
        client = await super().async_start_new_kernel_client()
        for channel in (client.shell_channel, client.iopub_channel):
            channel.get_msg = _sliced(channel.get_msg)
        return client
