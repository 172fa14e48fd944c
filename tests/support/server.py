"""A real submission server for the tests: a released course, tokens from the CLI, `serve` as a subprocess.

`course_with_chapter01` releases chapter 01 (the cheapest to grade) into a course directory;
`issue_tokens` runs `python -m autograder.cli.instructor tokens` as the issue states it; `Server`
(`support.load`) starts `python -m autograder.cli.instructor serve` on a free loopback port;
`correct`, `buggy` and `tampering` write notebooks the way a student edits the released one.
"""

import subprocess
import sys
import time
from pathlib import Path

import httpx
from conftest import IMPLEMENTATIONS, REPO, released_course

from support.load import Server, environment
from support.simulate import reference_code, replace_function, submission

__all__ = ["Server"]

CHAPTER = "01_bigram_counting"
NOTEBOOK = f"{CHAPTER}.ipynb"
# bigram_probs from the catalogue of wrong implementations (it never uses k): 2 points lost
BUGGY_IMPLEMENTATION = IMPLEMENTATIONS / "bigram_probs" / "wrong_ignores_k.py"
# a tamperer: patches NumPy's comparison for everyone, and mean_nll answers 0 (2 points lost)
TAMPER = "import numpy as np\nnp.allclose = lambda *a, **k: True\n" + replace_function(
    reference_code(CHAPTER)["mean_nll_code"], "mean_nll", "return 0.0"
)


def course_with_chapter01(course: Path) -> Path:
    """A course directory with chapter 01 released; the released notebook's path."""
    released_course(course, CHAPTER)
    return course / "release" / CHAPTER / f"{CHAPTER}.ipynb"


def issue_tokens(
    course: Path, *students: str, instructor: str | None = None, db: str | None = None
) -> dict[str, str]:
    """`tokens --root COURSE STUDENT...` (and `--instructor`, `--db`), as an instructor runs it: name -> token."""
    command = [sys.executable, "-m", "autograder.cli.instructor", "tokens", "--root", str(course)]
    command += [*students, *(["--instructor", instructor] if instructor else [])]
    command += ["--db", db] if db else []
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
        time.sleep(0.25)
    raise AssertionError(f"submission {submission_id} was not graded in {timeout} s")
