"""Helpers for the tests of the submission server's client, web pages and collect: a released course
with tokens, and `python -m autograder.course serve` on a free loopback port (one grading worker)."""

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from browser import free_port

from autograder.course.release import release
from autograder.course.simulate import reference_code, submission


def course(*args: str) -> str:
    """Run `python -m autograder.course ARGS`; its output (the test fails when it does)."""
    done = subprocess.run(
        [sys.executable, "-m", "autograder.course", *args], capture_output=True, text=True
    )
    assert done.returncode == 0, f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr[-3000:]}"
    return done.stdout


def released_course(root: Path, chapter: str) -> Path:
    """A course directory with `chapter` released; its released notebook."""
    release(root, [chapter])
    return root / "release" / chapter / f"{chapter}.ipynb"


def tokens(root: Path, *students: str, instructor: str | None = None) -> dict[str, str]:
    """New tokens for `students` (and an instructor), by the `tokens` command: name -> token."""
    extra = ["--instructor", instructor] if instructor else []
    lines = course("tokens", "--root", str(root), *students, *extra).split()
    return dict(line.split(",", 1) for line in lines)


def solved(released: Path, target: Path, chapter: str, edit: object = None) -> Path:
    """`released` with the reference answers written in (and `edit` applied), saved as `target`."""
    return submission(released, target, reference_code(chapter), edit)


class Server:
    """`python -m autograder.course serve` on the course `root` (one local worker), until exit."""

    def __init__(self, root: Path, *options: str):
        self.root, self.options, self.port = root, options, free_port()
        self.process: subprocess.Popen | None = None
        self.log_path = root.parent / f"server-{self.port}.log"

    @property
    def base(self) -> str:
        """The server's address."""
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> "Server":
        command = [sys.executable, "-m", "autograder.course", "serve", "--root", str(self.root)]
        command += ["--port", str(self.port), "--workers", "1", *self.options]
        self.log = self.log_path.open("w")
        self.process = subprocess.Popen(
            command, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                with urllib.request.urlopen(f"{self.base}/api/health", timeout=5) as answer:
                    if answer.status == 200:
                        return self
            except OSError:
                time.sleep(0.3)
        log = self.server_log()
        self.__exit__()
        raise RuntimeError(f"the server did not start:\n{log}")

    def server_log(self) -> str:
        """The end of the server's log."""
        return self.log_path.read_text()[-4000:]

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=30)
        self.log.close()


def api(server: Server, path: str, token: str) -> object:
    """GET an API path with the token; the decoded JSON."""
    import json

    request = urllib.request.Request(
        f"{server.base}{path}", headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def wait_graded(server: Server, token: str, submission_id: int, timeout: float = 600) -> dict:
    """Poll until the submission is graded or failed; its summary."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = api(server, f"/api/submissions/{submission_id}", token)
        if found["status"] in ("graded", "failed"):
            return found
        time.sleep(1)
    raise AssertionError(f"submission {submission_id} not graded in {timeout} s")
