"""The Dask cluster class grading runs on: a local one by default, or a running scheduler's.

    LocalCluster: one single-threaded worker process per core (`make autograde`: no more than it has
    submissions to grade), each with a share of the memory.
    --scheduler tcp://host:port: workers started elsewhere with `dask worker tcp://host:port`.

Every worker gets `GradingPlugin` (Dask's worker-plugin lifecycle): it sets the grading
environment, imports nbgrader and the grader once, and keeps a scratch directory for the tasks,
removed when the worker closes. A task whose worker dies is given to another worker, at most
ATTEMPTS times in all (`make autograde`); the server asks for one run a task and retries itself,
through its database (`server/grading_loop.py`).

Both submit their tasks through `GradingTasks`: each chapter's release data once, as a task every
grading task of the chapter takes it from, then one task per submission.
"""

import contextlib
import logging
import os
import secrets
import shutil
import sys
import tempfile
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field

from autograder.course.task import Job, Release, hold

ATTEMPTS = 3  # a task whose worker died is run at most this many times in all
PLUGIN = "proof-lm-grading"


def _plugin_class() -> type:
    from distributed import WorkerPlugin

    class GradingPlugin(WorkerPlugin):
        """Per-worker state for grading: environment, warm imports, a scratch directory."""

        name = PLUGIN

        def setup(self, worker: object) -> None:
            """Prepare the worker before its first task."""
            from nbgrader.apps.api import NbGraderAPI  # noqa: F401 - imported once, here

            from autograder.course import task

            task.worker_environment()
            self.scratch = tempfile.mkdtemp(prefix="proof-lm-worker-")

        def teardown(self, worker: object) -> None:
            """Remove the scratch directory."""
            shutil.rmtree(self.scratch, ignore_errors=True)

    return GradingPlugin


def scratch_directory() -> str | None:
    """The scratch directory of the worker running this task (None outside a grading worker)."""
    from distributed import get_worker

    with contextlib.suppress(ValueError, KeyError, AttributeError):
        return get_worker().plugins[PLUGIN].scratch
    return None


@contextlib.contextmanager
def grading_client(
    scheduler: str | None = None, workers: int | None = None, attempts: int = ATTEMPTS
) -> Iterator[object]:
    """A Dask client on `scheduler`, or on a LocalCluster of `workers` processes (default: one per
    core), whose scheduler runs a task whose worker dies at most `attempts` times in all (a
    scheduler of its own at `scheduler` keeps its own setting)."""
    import dask
    from distributed import Client, LocalCluster

    if attempts < 1:
        raise ValueError(f"attempts: expected a positive count of runs, got {attempts!r}")
    with dask.config.set(
        {
            "distributed.scheduler.allowed-failures": attempts - 1,
        }
    ):
        if scheduler:
            client = Client(scheduler, timeout="30s")
            client.wait_for_workers(1, timeout=120)
            cluster = None
        else:
            cluster = LocalCluster(
                n_workers=workers or os.cpu_count() or 1,
                threads_per_worker=1,
                processes=True,
                memory_limit="auto",
                dashboard_address="127.0.0.1:0",
                silence_logs=logging.ERROR,
            )
            client = Client(cluster)
        try:
            try:
                client.register_plugin(_plugin_class()(), name=PLUGIN)
            except OSError as error:  # a worker died meanwhile: the scheduler keeps the plugin
                print(f"note: a worker was lost while getting ready ({error})", file=sys.stderr)
            yield client
        finally:
            client.close()
            if cluster is not None:
                cluster.close()


def _same_release(chapter: str) -> int:
    """A chapter's release data never changes within an `autograde` run."""
    return 0


@dataclass
class GradingTasks:
    """The grading tasks one run submits to a cluster (`autograde`, the server's grading loop).

    Each chapter's release data is submitted once, as a small task (`task.hold`) that every grading
    task of the chapter takes it from: fetched once by each worker that needs it and, unlike
    scattered data, computed again by the scheduler if every holder dies (killed workers lose
    nothing). It is submitted again when `version(chapter)` changes (the server: a chapter released
    again). Every key carries a token of the run, so that two runs on one cluster (a separate
    scheduler, a rerun, two server processes) never share a task.
    """

    client: object
    grade: Callable[..., object]  # grade(job, release, seed, sandboxed, scratch), on the worker
    release: Callable[[str], Release]  # a chapter's release data
    version: Callable[[str], Hashable] = _same_release  # changes when a chapter's release does
    prefix: str = "autograde"  # what the run's keys start with
    run: str = field(default_factory=lambda: secrets.token_hex(6))
    _held: dict = field(default_factory=dict, init=False)  # chapter -> (version, future)

    def held(self, chapter: str) -> object:
        """The future holding the chapter's release data, submitted when first needed or changed."""
        version = self.version(chapter)
        known = self._held.get(chapter)
        if known is None or known[0] != version:
            key = f"{self.prefix}-release-{chapter}-{version}-{self.run}"
            self._held[chapter] = (
                version,
                self.client.submit(hold, self.release(chapter), key=key),
            )
        return self._held[chapter][1]

    def submit(self, job: Job, seed: int, sandboxed: bool, name: str) -> object:
        """One task grading `job` with its chapter's release data; `name` is its part of the key."""
        return self.client.submit(
            run_grading,
            self.grade,
            job,
            self.held(job.chapter),
            seed,
            sandboxed,
            key=f"{self.prefix}-grade-{name}-{self.run}",
            pure=False,
        )


def run_grading(
    grade: Callable[..., object], job: Job, release: Release, seed: int, sandboxed: bool
) -> object:
    """A grading task as its worker runs it: `grade` in the worker's scratch directory."""
    return grade(job, release, seed, sandboxed, scratch_directory())
