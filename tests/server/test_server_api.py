"""The submission server's API end to end: a real server (`python -m autograder.cli.instructor serve`) on
loopback, real sandboxed grading on the local Dask cluster, tokens from the real `tokens` command.

A correct, a buggy and a tampering notebook get their scores and feedback pages (no hidden test,
reference or server path in them); every refusal answers with its code (401, 403, 404, 413 by
Content-Length and while streaming a chunked body, 422, 429 with Retry-After, 409 beyond a
student's bound on waiting submissions, 503 when the queue is full); another student's submission is 404; tokens never reach the server's log; a grading
worker killed in the middle of a notebook loses nothing; after a SIGKILL of the server with
submissions queued, a restart grades every one of them, once; and two servers share one
PostgreSQL database (a cluster of the tests' own, `support.postgres`).
"""

import json
import os
import re
import signal
import time
from pathlib import Path

import httpx
import psutil
import pytest
from conftest import REPO
from sqlalchemy import select
from support.classes import busy_workers
from support.server import (
    CHAPTER,
    NOTEBOOK,
    Server,
    buggy,
    correct,
    course_with_chapter01,
    issue_tokens,
    tampering,
    upload,
    wait_graded,
)
from support.simulate import reference_code, submission

from autograder.judge.exercises import chapter_exercises
from autograder.server.db import Submission, open_database

pytestmark = pytest.mark.slow
PER_HOUR = 2


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One server for the module: chapter 01 released, PER_HOUR=2, MAX_BYTES just above a notebook."""
    tmp = tmp_path_factory.mktemp("server")
    course = tmp / "course"
    released = course_with_chapter01(course)
    notebooks = {
        "correct": correct(released, tmp / "correct" / NOTEBOOK),
        "buggy": buggy(released, tmp / "buggy" / NOTEBOOK),
        "tampering": tampering(released, tmp / "tampering" / NOTEBOOK),
    }
    max_bytes = 2 * len(notebooks["correct"])
    tokens = issue_tokens(course, "alice", "bob", "mallory", "carol", instructor="prof")
    server = Server(
        course, tmp / "server.log", "--per-hour", str(PER_HOUR), "--max-bytes", str(max_bytes)
    )
    with server:
        yield server, tokens, notebooks, max_bytes


def test_health_and_tokens(served):
    server, tokens, notebooks, _ = served
    with server.client() as anonymous:
        health = anonymous.get("/api/health").json()
        assert health["status"] == "ok" and health["grading"] == "ready" and health["workers"] >= 1
        missing = upload(anonymous, notebooks["correct"])
        assert missing.status_code == 401 and missing.headers["www-authenticate"] == "Bearer"
        assert anonymous.get("/api/submissions").status_code == 401
    with server.client("x" * 43) as unknown:
        assert upload(unknown, notebooks["correct"]).status_code == 401
        assert unknown.get("/api/submissions").status_code == 401
    # a new token for carol: her earlier one stops working, the new one works
    old = tokens["carol"]
    new = issue_tokens(server.course, "carol")["carol"]
    assert new != old
    with server.client(old) as stale:
        assert stale.get("/api/submissions").status_code == 401
    with server.client(new) as fresh:
        assert fresh.get("/api/submissions").json() == []
    tokens["carol"] = new
    # the database keeps hashes, never a token
    database = (server.course / "submissions.db").read_bytes()
    assert not any(token.encode() in database for token in tokens.values())
    # an instructor's token does not submit
    with server.client(tokens["prof"]) as instructor:
        assert upload(instructor, notebooks["correct"]).status_code == 403


def test_correct_buggy_and_tampering_notebooks(served):
    server, tokens, notebooks, _ = served
    ids = {}
    for student, kind in (("alice", "correct"), ("bob", "buggy"), ("mallory", "tampering")):
        with server.client(tokens[student]) as client:
            answer = upload(client, notebooks[kind])
            assert answer.status_code == 202, answer.text
            assert answer.json() == {"id": answer.json()["id"], "status": "queued"}
            ids[student] = answer.json()["id"]
    results = {}
    for student, submission_id in ids.items():
        with server.client(tokens[student]) as client:
            results[student] = wait_graded(client, submission_id)
    for student, result in results.items():
        assert set(result) == {
            "id",
            "student",
            "chapter",
            "status",
            "points",
            "max_points",
            "exercises",
            "written",
            "flags",
            "submitted_at",
            "graded_at",
            "seed",
            "stages",
        }
        stages = result["stages"]  # how long each stage took, in seconds
        assert list(stages) == ["waiting", "scan", "grade", "record", "feedback", "total"], stages
        assert all(seconds >= 0 for seconds in stages.values()) and stages["grade"] > 0
        assert sum(stages.values()) - stages["total"] == pytest.approx(stages["total"], abs=0.01)
        assert result["student"] == student and result["chapter"] == CHAPTER
        assert result["written"] == [], "chapter 01 has no written answer"
        assert result["status"] == "graded", result
        assert result["max_points"] == 7.0
        for row in result["exercises"]:
            assert set(row) == {"exercise", "points", "earned", "passed", "extra"}
        assert isinstance(result["seed"], int)
        assert result["submitted_at"] <= result["graded_at"]
    earned = {
        s: {r["exercise"]: r["earned"] for r in res["exercises"]} for s, res in results.items()
    }
    assert results["alice"]["points"] == 7.0 and results["alice"]["flags"] == []
    assert all(row["passed"] for row in results["alice"]["exercises"])
    assert results["bob"]["points"] == 5.0 and earned["bob"]["bigram_probs"] == 0.0
    assert results["mallory"]["points"] == 5.0 and earned["mallory"]["mean_nll"] == 0.0
    assert any("suspicious code" in flag for flag in results["mallory"]["flags"])
    assert results["bob"]["flags"] == []

    # the feedback pages: the hint for bob's bug; no hidden test, reference or server path
    pages = {}
    for student, submission_id in ids.items():
        with server.client(tokens[student]) as client:
            page = client.get(f"/api/submissions/{submission_id}/feedback")
            assert page.status_code == 200
            assert page.headers["content-type"].startswith("text/html")
            # a sandbox of its own origin, where no script runs
            assert page.headers["content-security-policy"].startswith("sandbox allow-popups;")
            assert '<meta http-equiv="Content-Security-Policy"' in page.text
            pages[student] = page.text
    assert "k was ignored" in pages["bob"]
    assert "bigram_probs failed the trusted grader" in pages["bob"]
    assert "mean_nll failed the trusted grader" in pages["mallory"]
    assert "failed the trusted grader" not in pages["alice"]
    leaks = _hidden_test_lines() + _reference_names()
    leaks += [str(server.course.resolve()), str(REPO), "submissions.db", "proof-lm-task-"]
    for student, page in pages.items():
        found = [leak for leak in leaks if leak in page]
        assert not found, f"{student}'s feedback shows {found}"
        assert not [other for other, token in tokens.items() if token in page]

    # another student's submission: 404, for its summary and its feedback; the list is one's own
    with server.client(tokens["bob"]) as bob:
        assert bob.get(f"/api/submissions/{ids['alice']}").status_code == 404
        assert bob.get(f"/api/submissions/{ids['alice']}/feedback").status_code == 404
        assert bob.get("/api/submissions/999999").status_code == 404
        assert [s["id"] for s in bob.get("/api/submissions").json()] == [ids["bob"]]
    # the instructor sees the class: everyone's latest, with the flags
    with server.client(tokens["prof"]) as instructor:
        latest = {row["student"]: row for row in instructor.get("/api/class").json()}
        assert {s: latest[s]["points"] for s in ids} == {"alice": 7.0, "bob": 5.0, "mallory": 5.0}
        assert latest["mallory"]["flags"] and not latest["alice"]["flags"]
    with server.client(tokens["bob"]) as bob:
        assert bob.get("/api/class").status_code == 403


def _hidden_test_lines() -> list[str]:
    """Lines of the chapter's hidden tests (between the markers in the source notebook)."""
    notebook = json.loads((REPO / "solutions" / NOTEBOOK).read_text())
    lines = []
    for cell in notebook["cells"]:
        source = "".join(cell["source"])
        for block in re.findall(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", source, re.S):
            lines += [line.strip() for line in block.splitlines() if line.strip()]
    assert 'run_checks("bigram_probs", bigram_probs)' in lines
    return lines


def _reference_names() -> list[str]:
    """The names of the hidden checks' reference functions for chapter 01."""
    checks = REPO / "autograder" / "judge" / "checks"
    modules = [
        "bigram_counting_shared",
        *(e.module for e in chapter_exercises("01_bigram_counting")),
    ]
    source = "".join((checks / f"{module}.py").read_text() for module in modules)
    names = re.findall(r"^def (reference_\w+)", source, re.M)
    assert "reference_probs" in names
    return names


def test_refusals_413_422_429(served):
    server, tokens, notebooks, max_bytes = served
    with server.client(tokens["alice"]) as alice:
        # 413: a notebook over MAX_BYTES, said up front by Content-Length ...
        big = notebooks["correct"] + b" " * max_bytes
        answer = upload(alice, big)
        assert answer.status_code == 413, answer.text
        # ... and a chunked body with no Content-Length: refused while reading it
        boundary = "proof-lm-test"
        head = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="notebook"; '
            f'filename="{NOTEBOOK}"\r\nContent-Type: application/octet-stream\r\n\r\n'
        ).encode()

        def body():
            yield head
            for _ in range(200):  # 200 x 64 KiB = 12.5 MB, far beyond the cap
                yield b" " * 65536
            yield f"\r\n--{boundary}--\r\n".encode()

        try:
            chunked = alice.post(
                "/api/submissions",
                content=body(),
                headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
            )
            assert chunked.status_code == 413, chunked.text
        except httpx.TransportError:  # the server may close the connection once it has answered
            pass
        # 422: not a notebook, a chapter that was not released, a bad name, no file field
        assert upload(alice, b"this is not a notebook {").status_code == 422
        assert upload(alice, b"").status_code == 422
        half = json.loads(notebooks["correct"]) | {"metadata": {"x": "\ud800"}}  # a lone surrogate
        assert upload(alice, json.dumps(half).encode()).status_code == 422
        assert upload(alice, notebooks["correct"], "02_neural_bigram.ipynb").status_code == 422
        assert upload(alice, notebooks["correct"], f"../{NOTEBOOK}").status_code == 422
        assert upload(alice, notebooks["correct"], "notes.txt").status_code == 422
        no_field = alice.post("/api/submissions", files={"other": (NOTEBOOK, b"{}")})
        assert no_field.status_code == 422
        not_multipart = alice.post("/api/submissions", content=notebooks["correct"])
        assert not_multipart.status_code == 422
        # refused uploads do not count: alice's earlier one (in the test above) and one more are
        # accepted, then 429 with Retry-After for this chapter
        before = len(alice.get("/api/submissions").json())
        for _ in range(PER_HOUR - before):
            assert upload(alice, notebooks["correct"]).status_code == 202
        limited = upload(alice, notebooks["correct"])
        assert limited.status_code == 429, limited.text
        assert 0 < int(limited.headers["retry-after"]) <= 3600
        listed = alice.get("/api/submissions").json()
        assert len(listed) == PER_HOUR
        assert [s["id"] for s in listed] == sorted((s["id"] for s in listed), reverse=True)
        for submission in listed:
            wait_graded(alice, submission["id"])
    # the 413s and 422s were never stored
    assert len(alice_rows(server)) == PER_HOUR


def alice_rows(server: Server) -> list[Submission]:
    sessions = open_database(f"sqlite:///{server.course / 'submissions.db'}")
    with sessions() as session:
        return list(
            session.scalars(select(Submission).where(Submission.person.has(name="alice"))).all()
        )


def test_tokens_never_reach_the_log(served):
    server, tokens, _notebooks, _ = served
    with server.client(tokens["bob"]) as bob:
        upload(bob, b"not a notebook")  # refused and never stored, but a POST the log records
        bob.get("/api/submissions")
        bob.get("/api/submissions?token=ignored")
    log = server.log()
    assert "POST /api/submissions" in log  # the access log is on
    assert not [name for name, token in tokens.items() if token in log]


def test_restart_after_sigkill_grades_every_queued_submission_once(tmp_path):
    course = tmp_path / "course"
    released = course_with_chapter01(course)
    notebook = correct(released, tmp_path / "correct" / NOTEBOOK)
    students = [f"student{n}" for n in range(4)]
    tokens = issue_tokens(course, *students)
    server = Server(
        course, tmp_path / "server.log", "--queue", "3", "--waiting", "1", "--workers", "1"
    )
    server.start()
    ids = {}
    try:
        for student in students[:3]:
            with server.client(tokens[student]) as client:
                answer = upload(client, notebook)
                assert answer.status_code == 202, answer.text
                ids[student] = answer.json()["id"]
                again = upload(client, notebook)  # one of theirs waiting: --waiting 1 refuses
                assert again.status_code == 409 and "waiting" in again.text, again.text
                assert int(again.headers["retry-after"]) > 0
        with server.client(tokens[students[3]]) as client:
            full = upload(client, notebook)  # three waiting: the queue is full
            assert full.status_code == 503, full.text
            assert int(full.headers["retry-after"]) > 0
        # wait until one is being graded, then crash the server
        with server.client(tokens[students[0]]) as client:
            deadline = time.monotonic() + 600
            while client.get(f"/api/submissions/{ids[students[0]]}").json()["status"] == "queued":
                assert time.monotonic() < deadline, server.log()[-3000:]
                time.sleep(0.2)
    finally:
        server.kill()
    sessions = open_database(f"sqlite:///{course / 'submissions.db'}")
    with sessions() as session:
        before = {
            row.id: (row.status, row.seed, row.sha256)
            for row in session.scalars(select(Submission))
        }
    assert set(before) == set(ids.values())
    assert {status for status, _, _ in before.values()} <= {"queued", "grading", "graded"}
    assert any(status != "graded" for status, _, _ in before.values())

    with Server(course, tmp_path / "server.log", "--workers", "1") as restarted:
        for student, submission_id in ids.items():
            with restarted.client(tokens[student]) as client:
                result = wait_graded(client, submission_id)
                assert result["status"] == "graded" and result["points"] == 7.0, result
                assert [s["id"] for s in client.get("/api/submissions").json()] == [submission_id]
    with sessions() as session:
        after = {
            row.id: (row.status, row.seed, row.sha256)
            for row in session.scalars(select(Submission))
        }
    assert set(after) == set(before)  # nothing lost, nothing added
    assert {k: v[1:] for k, v in after.items()} == {k: v[1:] for k, v in before.items()}
    assert "queued again: 3 submissions left waiting by an earlier run" in restarted.log()


def test_two_servers_on_one_postgresql_database_share_it(postgres_server, tmp_path):
    """Two `serve` processes on one PostgreSQL database (`--db`): what one accepts, it grades
    once, and the other answers for it."""
    from support.postgres import fresh_database

    url = fresh_database(postgres_server, "two_servers")
    course = tmp_path / "course"
    notebook = correct(course_with_chapter01(course), tmp_path / "correct" / NOTEBOOK)
    tokens = issue_tokens(course, "alice", db=url)
    first = Server(course, tmp_path / "first.log", "--db", url, "--workers", "1")
    second = Server(course, tmp_path / "second.log", "--db", url, "--workers", "1")
    try:
        for server in (first.launch(), second.launch()):
            server.ready()
        with second.client(tokens["alice"]) as client:
            answer = upload(client, notebook)
            assert answer.status_code == 202, answer.text
        with first.client(tokens["alice"]) as client:
            result = wait_graded(client, answer.json()["id"])
            assert [s["id"] for s in client.get("/api/submissions").json()] == [result["id"]]
    finally:
        first.stop()
        second.stop()
    assert result["status"] == "graded" and result["points"] == 7.0, result
    assert not (course / "submissions.db").exists()  # nothing went to the default SQLite file
    with open_database(url)() as session:
        (row,) = session.scalars(select(Submission)).all()
        assert (row.id, row.status, row.points, row.attempts) == (result["id"], "graded", 7.0, 1)


def test_a_grading_worker_killed_mid_notebook_loses_nothing(tmp_path):
    course = tmp_path / "course"
    released = course_with_chapter01(course)
    # the student's own top-level code sleeps: the grading process lives long enough to be seen
    # (a correct notebook alone is graded in well under a second, between two looks)
    code = reference_code(CHAPTER)
    code["bigram_counts_code"] += "\n\nimport time\n\ntime.sleep(3)\n"
    notebook = submission(released, tmp_path / "slow" / NOTEBOOK, code).read_bytes()
    tokens = issue_tokens(course, "alice")
    with (
        Server(course, tmp_path / "server.log", "--workers", "1") as server,
        server.client(tokens["alice"]) as client,
    ):
        number = upload(client, notebook).json()["id"]
        parent = psutil.Process(server.process.pid)
        deadline = time.monotonic() + 900
        while not (busy := busy_workers(parent)):
            assert time.monotonic() < deadline, "no worker was seen running the notebook"
            time.sleep(0.2)
        time.sleep(1.0)  # let it get into the notebook
        os.kill(busy[0].pid, signal.SIGKILL)
        result = wait_graded(client, number)
    assert result["status"] == "graded" and result["points"] == 7.0, result
    # the server's database retried it (a second claim), not Dask behind its back
    with open_database(f"sqlite:///{course / 'submissions.db'}")() as session:
        assert session.get(Submission, number).attempts == 2
    assert f"submission {number} queued again: KilledWorker" in server.log()


def test_health_says_whether_grading_has_started():
    from autograder.server.grading_loop import GradingLoop

    loop = GradingLoop(Path("."), sessions=None)
    assert loop.state() == "starting"
    loop.ready.set()
    assert loop.state() == "ready"
    loop.stop()
    assert loop.state() == "stopped"
