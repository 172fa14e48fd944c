"""A cluster on one machine for tests and benchmarks: a separate scheduler and workers on 127.0.0.1."""

import contextlib
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path


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
