"""The Dask cluster class grading runs on: a local one by default, or a running scheduler's.

    LocalCluster: one single-threaded worker process per core, each with a share of the memory.
    --scheduler tcp://host:port: workers started elsewhere with `dask worker tcp://host:port`.

Every worker gets `GradingPlugin` (Dask's worker-plugin lifecycle): it sets the grading
environment, imports nbgrader and the grader once, and keeps a scratch directory for the tasks,
removed when the worker closes. A task whose worker dies is given to another worker, at most
ATTEMPTS times in all.
"""

import contextlib
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

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
def grading_client(scheduler: str | None = None, workers: int | None = None) -> Iterator[object]:
    """A Dask client on `scheduler`, or on a LocalCluster of `workers` processes (default: one per core)."""
    import dask
    from distributed import Client, LocalCluster

    with dask.config.set(
        {
            "distributed.scheduler.allowed-failures": ATTEMPTS - 1,
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


@contextlib.contextmanager
def loopback_cluster(workers: int = 2) -> Iterator[tuple[str, list[subprocess.Popen]]]:
    """A separate `dask scheduler` and `workers` `dask worker` processes on 127.0.0.1; (address, workers).

    What the README's two-host recipe starts, on one machine: a way to try a cluster, and to test it.
    """
    dask = str(Path(sys.executable).with_name("dask"))
    with tempfile.TemporaryDirectory(prefix="proof-lm-dask-") as tmp:
        address_file = Path(tmp, "scheduler.json")
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        scheduler = subprocess.Popen(
            [
                dask,
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(address_file),
            ],
            **quiet,
        )
        started = [scheduler]
        try:
            deadline = time.monotonic() + 60
            while not address_file.exists() and time.monotonic() < deadline:
                time.sleep(0.2)
            address = json.loads(address_file.read_text())["address"]
            for number in range(workers):
                started.append(
                    subprocess.Popen(
                        [
                            dask,
                            "worker",
                            address,
                            "--nthreads",
                            "1",
                            "--no-dashboard",
                            "--name",
                            f"loopback-{number}",
                            "--local-directory",
                            tmp,
                        ],
                        **quiet,
                    )
                )
            yield address, started[1:]
        finally:
            for process in reversed(started):
                process.terminate()
            for process in started:
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
