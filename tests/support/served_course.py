"""Helpers for the tests of the server's client, web pages and collect, on top of tests/support/server.py: a
server (one grading worker) for the length of a `with`, JSON from its API, a solved notebook's file."""

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from support.server import CHAPTER, Server, correct


@contextmanager
def serving(course: Path, *args: str) -> Iterator[Server]:
    """`python -m autograder.cli.instructor serve` on `course` with one local worker (and `args`), stopped after."""
    server = Server(course, course.parent / "server.log", "--workers", "1", *args).start()
    try:
        yield server
    finally:
        server.stop()


def api(server: Server, path: str, token: str) -> object:
    """GET an API path with the token; the decoded JSON."""
    with server.client(token) as client:
        answer = client.get(path)
    assert answer.status_code == 200, answer.text
    return answer.json()


def solved(released: Path, target: Path) -> Path:
    """`released` with every reference solution written in, saved as `target` (chapter 01)."""
    assert released.name == f"{CHAPTER}.ipynb", released
    correct(released, target)
    return target
