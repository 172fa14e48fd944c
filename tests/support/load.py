"""A class submitting at once to a real server: what the load test asserts and the benchmark prints.

`Server` runs `python -m autograder.cli.instructor serve` as a subprocess on a free loopback port.

Every student's notebooks are uploaded at the same moment (one thread per student, started by one
barrier), or each at its own time after it (a class arriving over some minutes); each student's list is polled until all are graded, and each feedback page fetched
once when it is there; meanwhile `GET /api/health` is probed every `probe_every` seconds, from a
process of its own (`python -m support.load URL SECONDS`, until a line on its stdin),
and its latency kept. Uses httpx, like any client of the API.
"""

import contextlib
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from autograder.paths import REPO
from support.simulate import reference_code, replace_function, submission

CHAPTER = "01_bigram_counting"  # the cheapest chapter to grade
# a student's first try: bigram_probs ignores k (2 of 7 points lost); the others are right
IGNORES_K = """totals = counts.sum(axis=1, keepdims=True)
return np.where(totals > 0, counts / np.where(totals > 0, totals, 1), 1.0 / counts.shape[1])"""
POINTS = (5.0, 7.0, 7.0)  # what each of a student's three notebooks earns, in order


@dataclass
class ClassLoad:
    """What one run measured: per submission id, its upload and feedback times; every health probe."""

    accepted: dict[int, tuple[str, bytes]] = field(default_factory=dict)  # id -> (student, bytes)
    refused: list[tuple[str, int, str]] = field(default_factory=list)  # (student, status, text)
    uploaded: dict[int, float] = field(default_factory=dict)  # id -> when the 202 came
    finished: dict[int, dict] = field(default_factory=dict)  # id -> summary once graded or failed
    feedback: dict[int, float] = field(default_factory=dict)  # id -> when its page was fetched
    health: list[float] = field(default_factory=list)  # seconds per probe (inf: no answer)
    started: float = 0.0
    ended: float = 0.0

    def per_minute(self) -> float:
        """Submissions graded per minute, from the first upload to the last result."""
        return 60 * len(self.finished) / max(self.ended - self.started, 1e-9)

    def upload_to_feedback(self) -> list[float]:
        """Seconds from each 202 to its feedback page, sorted."""
        return sorted(self.feedback[i] - self.uploaded[i] for i in self.feedback)


def class_notebooks(
    released: Path, students: list[str], attempts: int = len(POINTS)
) -> dict[str, list[tuple[str, bytes]]]:
    """`attempts` chapter-01 notebooks per student (earning the first of `POINTS`), every one
    different in its bytes: student -> [(file name, bytes)]."""
    if not 1 <= attempts <= len(POINTS):
        raise ValueError(f"attempts: expected 1 to {len(POINTS)}, got {attempts}")
    code = reference_code(CHAPTER)
    wrong = replace_function(code["bigram_probs_code"], "bigram_probs", IGNORES_K)
    notebooks = {}
    with tempfile.TemporaryDirectory(prefix="proof-lm-class-") as tmp:
        for student in students:
            notebooks[student] = []
            for attempt in range(attempts):
                mine = {**code, "bigram_probs_code": wrong} if POINTS[attempt] < 7 else dict(code)
                mine["perplexity_code"] += f"\n# {student}, attempt {attempt}\n"
                path = submission(released, Path(tmp, f"{student}-{attempt}.ipynb"), mine)
                notebooks[student].append((f"{CHAPTER}.ipynb", path.read_bytes()))
    return notebooks


def mixed_notebooks(
    course: Path, students: list[str], uploads: int, rng: random.Random
) -> dict[str, list[tuple[str, bytes]]]:
    """`uploads` solved notebooks per student, each of a chapter drawn uniformly from those released
    in `course`, every one different in its bytes: student -> [(file name, bytes)]."""
    released = sorted((course / "release").glob("*/*.ipynb"))
    notebooks = {}
    with tempfile.TemporaryDirectory(prefix="proof-lm-class-") as tmp:
        for student in students:
            notebooks[student] = []
            for attempt in range(uploads):
                path = rng.choice(released)
                code = reference_code(path.stem)
                last = list(code)[-1]
                code[last] += f"\n# {student}, attempt {attempt}\n"
                mine = submission(path, Path(tmp, f"{student}-{attempt}.ipynb"), code)
                notebooks[student].append((path.name, mine.read_bytes()))
    return notebooks


def percentile(values: list[float], fraction: float) -> float:
    """The `fraction` quantile of `values` (linear interpolation; `statistics.quantiles`)."""
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(fraction * 100) - 1]


def run_class(
    url: str,
    tokens: dict[str, str],
    notebooks: dict[str, list[tuple[str, bytes]]],
    timeout: float = 3600,
    probe_every: float = 0.25,
    poll_every: float = 2.0,
    arrivals: dict[str, list[float]] | None = None,
) -> ClassLoad:
    """Every student uploads their notebooks one after the other, as the kit's submit.py does
    (the server takes one upload at a time per student): all at once, or each upload `arrivals`
    seconds after the start (its own list per student, in order); wait for every result."""
    load = ClassLoad()
    lock = threading.Lock()
    done = threading.Event()
    barrier = threading.Barrier(len(notebooks) + 1)

    def upload(student: str, items: list[tuple[str, bytes]]) -> None:
        headers = {"Authorization": f"Bearer {tokens[student]}"}
        with httpx.Client(base_url=url, headers=headers, timeout=300) as client:
            barrier.wait()
            for number, (filename, data) in enumerate(items):
                if arrivals is not None:
                    time.sleep(
                        max(0.0, load.started + arrivals[student][number] - time.monotonic())
                    )
                answer = client.post("/api/submissions", files={"notebook": (filename, data)})
                with lock:
                    if answer.status_code == 202:
                        load.accepted[answer.json()["id"]] = (student, data)
                        load.uploaded[answer.json()["id"]] = time.monotonic()
                    else:
                        load.refused.append((student, answer.status_code, answer.text[:300]))

    def probe() -> None:
        # in a process of its own: the latency is the server's, not this process's threads' (its
        # 80 clients share one GIL, and a probe thread among them waits its turn)
        prober = subprocess.Popen(
            [sys.executable, "-m", "support.load", url, str(probe_every)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=REPO / "tests",  # where `support` is a package
        )
        done.wait()
        out, _ = prober.communicate("stop\n", timeout=120)
        load.health.extend(float(line) for line in out.split())

    def poll(student: str) -> None:
        headers = {"Authorization": f"Bearer {tokens[student]}"}
        with httpx.Client(base_url=url, headers=headers, timeout=300) as client:
            while not done.is_set():
                with lock:
                    mine = {i for i, (who, _) in load.accepted.items() if who == student}
                for summary in client.get("/api/submissions").json() if mine else []:
                    number = summary["id"]
                    finished = summary["status"] in ("graded", "failed")
                    if number in mine and number not in load.finished and finished:
                        page = client.get(f"/api/submissions/{number}/feedback")
                        with lock:
                            load.finished[number] = summary
                            if page.status_code == 200:
                                load.feedback[number] = time.monotonic()
                done.wait(poll_every)

    uploaders = [threading.Thread(target=upload, args=item) for item in notebooks.items()]
    pollers = [threading.Thread(target=poll, args=(student,)) for student in notebooks]
    prober = threading.Thread(target=probe)
    for thread in [*uploaders, prober]:
        thread.start()
    load.started = time.monotonic()
    barrier.wait()
    for thread in pollers:  # polling from the start: an early upload's result is seen early
        thread.start()
    for thread in uploaders:
        thread.join()
    deadline = time.monotonic() + timeout
    while len(load.finished) < len(load.accepted) and time.monotonic() < deadline:
        time.sleep(0.5)
    load.ended = time.monotonic()
    done.set()
    for thread in [*pollers, prober]:
        thread.join()
    return load


def environment() -> dict[str, str]:
    """The environment the course commands run with (this venv's tools on PATH)."""
    return dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """`python -m autograder.cli.instructor serve --root COURSE --port <free> ARGS` as a subprocess."""

    def __init__(self, course: Path, log: Path, *args: str) -> None:
        self.course, self.log_path, self.args = course, log, args
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 180) -> "Server":
        """Start it and wait until GET /api/health says grading is ready."""
        return self.launch().ready(timeout)

    def launch(self) -> "Server":
        """Start the process (`ready` waits for it): several servers start side by side."""
        command = [
            sys.executable,
            "-m",
            "autograder.cli.instructor",
            "serve",
            "--root",
            str(self.course),
        ]
        command += ["--port", str(self.port), *self.args]
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                command, cwd=REPO, env=environment(), stdout=log, stderr=log, start_new_session=True
            )
        return self

    def ready(self, timeout: float = 180) -> "Server":
        """Wait until GET /api/health says grading is ready."""
        if self.process is None:
            raise RuntimeError("the server was not started")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited:\n{self.log()[-3000:]}")
            try:
                answer = httpx.get(f"{self.url}/api/health", timeout=5)
                if answer.status_code == 200 and answer.json().get("grading") == "ready":
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.3)
        raise RuntimeError(f"the server did not answer in {timeout} s:\n{self.log()[-3000:]}")

    def kill(self) -> None:
        """SIGKILL the server process alone (a crash); then whatever it left behind."""
        if self.process is None:
            raise RuntimeError("the server was not started")
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


def probe_health(url: str, every: float) -> None:
    """Probe `url`/api/health every `every` seconds until a line (or the end) comes on stdin; then
    print each probe's latency in seconds, one a line (inf: no answer)."""
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.readline(), stop.set()), daemon=True).start()
    latencies = []
    with httpx.Client(base_url=url, timeout=30) as client:
        while not stop.is_set():
            start = time.monotonic()
            try:
                ok = client.get("/api/health").status_code == 200
            except httpx.TransportError:
                ok = False
            latencies.append(time.monotonic() - start if ok else float("inf"))
            stop.wait(every)
    print("\n".join(map(str, latencies)), flush=True)


if __name__ == "__main__":
    probe_health(sys.argv[1], float(sys.argv[2]))
