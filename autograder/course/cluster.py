"""The Dask cluster class grading runs on: a local one by default, or a running scheduler's.

    LocalCluster: one single-threaded worker process per core, each with a share of the memory.
    --scheduler tcp://host:port: workers started elsewhere with `dask worker tcp://host:port`.

Every worker gets `GradingPlugin` (Dask's worker-plugin lifecycle): it sets the grading
environment, imports nbgrader and the grader once, and keeps a scratch directory for the tasks,
removed when the worker closes. A task whose worker dies is given to another worker, at most
ATTEMPTS times in all (`make autograde`); the server asks for one run a task and retries itself,
through its database (`server/grading_loop.py`).
"""

import contextlib
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator

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
