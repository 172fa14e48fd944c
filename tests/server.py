"""A real submission server for the tests: a released course, tokens from the CLI, `serve` as a subprocess.

`course_with_chapter01` releases chapter 01 (the cheapest to grade) into a course directory;
`issue_tokens` runs `python -m autograder.course tokens` as the issue states it; `Server` starts
`python -m autograder.course serve` on a free loopback port and waits until `/api/health` answers;
`correct`, `buggy` and `tampering` write notebooks the way a student edits the released one.
"""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
from conftest import IMPLEMENTATIONS, REPO

from autograder.course import release
from autograder.course.simulate import reference_code, replace_function, submission

CHAPTER = "01_bigram_counting"
NOTEBOOK = f"{CHAPTER}.ipynb"
# bigram_probs from the catalogue of wrong implementations (it never uses k): 2 points lost
BUGGY_IMPLEMENTATION = IMPLEMENTATIONS / "bigram_probs" / "wrong_ignores_k.py"
# a tamperer: patches NumPy's comparison for everyone, and mean_nll answers 0 (2 points lost)
TAMPER = "import numpy as np\nnp.allclose = lambda *a, **k: True\n" + replace_function(
    reference_code(CHAPTER)["mean_nll_code"], "mean_nll", "return 0.0"
)


def environment() -> dict[str, str]:
    """The environment the course commands run with (this venv's tools on PATH)."""
    return dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def course_with_chapter01(course: Path) -> Path:
    """A course directory with chapter 01 released; the released notebook's path."""
    return release(course, [CHAPTER])[0]


def issue_tokens(course: Path, *students: str, instructor: str | None = None) -> dict[str, str]:
    """`tokens --root COURSE STUDENT...` (and `--instructor`), as a student or instructor runs it: name -> token."""
    command = [sys.executable, "-m", "autograder.course", "tokens", "--root", str(course)]
    command += [*students, *(["--instructor", instructor] if instructor else [])]
    done = subprocess.run(command, cwd=REPO, env=environment(), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    assert len(lines) == len(students) + bool(instructor), done.stdout
    return dict(line.split(",", 1) for line in lines)


def correct(released: Path, target: Path) -> bytes:
    """A notebook with every reference solution: full marks."""
    return submission(released, target, reference_code(CHAPTER)).read_bytes()


def buggy(released: Path, target: Path) -> bytes:
    """The reference solutions but bigram_probs, taken from the catalogue of wrong ones."""
    code = {**reference_code(CHAPTER), "bigram_probs_code": BUGGY_IMPLEMENTATION.read_text()}
    return submission(released, target, code).read_bytes()


def tampering(released: Path, target: Path) -> bytes:
    """The reference solutions but a mean_nll that answers 0 behind a patched np.allclose."""
    code = {**reference_code(CHAPTER), "mean_nll_code": TAMPER}
    return submission(released, target, code).read_bytes()


class Server:
    """`python -m autograder.course serve --root COURSE --port <free> ARGS` as a subprocess."""

    def __init__(self, course: Path, log: Path, *args: str) -> None:
        self.course, self.log_path, self.args = course, log, args
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 180) -> "Server":
        """Start it and wait until GET /api/health answers 200."""
        command = [sys.executable, "-m", "autograder.course", "serve", "--root", str(self.course)]
        command += ["--port", str(self.port), *self.args]
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                command, cwd=REPO, env=environment(), stdout=log, stderr=log, start_new_session=True
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"the server exited:\n{self.log()[-3000:]}"
            try:
                if httpx.get(f"{self.url}/api/health", timeout=5).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.3)
        raise AssertionError(f"the server did not answer in {timeout} s:\n{self.log()[-3000:]}")

    def kill(self) -> None:
        """SIGKILL the server process alone (a crash); then whatever it left behind."""
        assert self.process is not None
        self.process.kill()
        self.process.wait()
        self._reap()

    def stop(self) -> None:
        """SIGTERM (uvicorn shuts down, the cluster closes); SIGKILL after 60 s."""
        if self.process is None or self.process.poll() is not None:
            self._reap()
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._reap()

    def _reap(self) -> None:
        """End what is left of the server's own process group (its session: the one we started)."""
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)

    def log(self) -> str:
        """Everything the server printed."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def client(self, token: str | None = None) -> httpx.Client:
        """An HTTP client on the server, with `Authorization: Bearer token` when given."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=120)

    def __enter__(self) -> "Server":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def upload(client: httpx.Client, data: bytes, name: str = NOTEBOOK) -> httpx.Response:
    """POST /api/submissions with `data` as the multipart field `notebook` named `name`."""
    return client.post("/api/submissions", files={"notebook": (name, data)})


def wait_graded(client: httpx.Client, submission_id: int, timeout: float = 1200) -> dict:
    """Poll GET /api/submissions/<id> until it is graded or failed; the submission."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = client.get(f"/api/submissions/{submission_id}")
        assert answer.status_code == 200, answer.text
        if answer.json()["status"] in ("graded", "failed"):
            return answer.json()
        time.sleep(1)
    raise AssertionError(f"submission {submission_id} was not graded in {timeout} s")
