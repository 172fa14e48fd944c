"""`make collect FROM_SERVER=1`: the submission server as the hand-in path, on a real course and server.

Students submit to a real server (`serve`, on the loopback) before and after the chapter's deadline
(`DEADLINES` in the course's nbgrader_config.py); the server is stopped and its database is what
collect reads. Each student's latest submission made by the deadline is handed in (its bytes,
exactly), with nbgrader's timestamp.txt at the time the server received it; later ones stay in the
database and are marked late there, in collected.json and on the command line; a student who
submitted only late hands in nothing. `make autograde` then grades the hand-ins as any others, and
nbgrader's gradebook agrees: the assignment's due date is the deadline, each submission's time is
the server's, and none is late. Without a deadline, the latest submission is handed in.
"""

import datetime as dt
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO
from support.page_attacks import course
from support.served_course import api, serving, solved
from support.server import course_with_chapter01, issue_tokens
from support.simulate import reference_code, replace_function, submission

from autograder.kit.client import upload
from autograder.server.db import database_url, open_database
from autograder.server.handin import Handin

pytestmark = pytest.mark.slow
CHAPTER = "01_bigram_counting"


def make(target: str, **variables: object) -> str:
    args = [f"{key}={value}" for key, value in variables.items()]
    done = subprocess.run(
        ["make", "--no-print-directory", target, *args], cwd=REPO, capture_output=True, text=True
    )
    assert done.returncode == 0, f"make {target}: {done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def set_deadlines(root: Path, deadlines: dict[str, str]) -> None:
    """Write DEADLINES into the course's nbgrader_config.py, as an instructor edits it."""
    config = root / "nbgrader_config.py"
    lines = config.read_text().splitlines()
    assert sum(line.startswith("DEADLINES = ") for line in lines) == 1
    kept = [
        f"DEADLINES = {deadlines!r}" if line.startswith("DEADLINES = ") else line for line in lines
    ]
    config.write_text("\n".join(kept) + "\n")


def server_time(moment: str) -> dt.datetime:
    """An API time (ISO 8601, Z) as the naive UTC time nbgrader keeps."""
    return dt.datetime.fromisoformat(moment.replace("Z", "+00:00")).replace(tzinfo=None)


def test_collect_from_server_hands_in_the_latest_submission_by_the_deadline(tmp_path):
    root = tmp_path / "course"
    released = course_with_chapter01(root)
    people = issue_tokens(root, "alice", "bob", "carol")
    right = solved(released, tmp_path / "right" / f"{CHAPTER}.ipynb")
    code = reference_code(CHAPTER)
    code["perplexity_code"] = replace_function(
        code["perplexity_code"], "perplexity", "return float(np.mean(-np.log(token_probs)))"
    )
    buggy = submission(released, tmp_path / "buggy" / f"{CHAPTER}.ipynb", code)
    name = f"{CHAPTER}.ipynb"
    with serving(root) as server:
        before = {
            "alice": upload(server.url, people["alice"], right, name),
            "bob": upload(server.url, people["bob"], buggy, name),
        }
        time.sleep(1.5)
        deadline = dt.datetime.now(dt.UTC)
        time.sleep(1.5)
        after = {
            "alice": upload(server.url, people["alice"], buggy, name),
            "carol": upload(server.url, people["carol"], right, name),
        }
        received = {
            number: server_time(
                api(server, f"/api/submissions/{number}", people[student])["submitted_at"]
            )
            for student, number in [*before.items(), *after.items()]
        }
    assert all(received[n] <= deadline.replace(tzinfo=None) for n in before.values())
    assert all(received[n] > deadline.replace(tzinfo=None) for n in after.values())
    set_deadlines(root, {CHAPTER: deadline.isoformat()})

    out = make("collect", COURSE=root, FROM_SERVER=1)
    assert f"collected alice {CHAPTER}" in out and f"collected bob {CHAPTER}" in out
    assert f"late alice {CHAPTER}: submission {after['alice']}" in out
    assert f"late carol {CHAPTER}: submission {after['carol']}" in out
    assert "collected carol" not in out
    submitted = root / "submitted"
    assert (submitted / "alice" / CHAPTER / name).read_bytes() == right.read_bytes()
    assert (submitted / "bob" / CHAPTER / name).read_bytes() == buggy.read_bytes()
    assert not (submitted / "carol").exists()
    for student in ("alice", "bob"):
        stamp = (submitted / student / CHAPTER / "timestamp.txt").read_text()
        assert stamp == f"{received[before[student]]:%Y-%m-%d %H:%M:%S.%f} UTC"
    manifest = json.loads((root / "collected.json").read_text())
    assert sorted(entry["submission"] for entry in manifest["_late"]) == sorted(after.values())
    sessions = open_database(database_url(root))
    with sessions() as session:
        marks = {row.submission_id: (row.handed_in, row.late) for row in session.query(Handin)}
    assert marks == {
        before["alice"]: (True, False),
        before["bob"]: (True, False),
        after["alice"]: (False, True),
        after["carol"]: (False, True),
    }

    course("autograde", "--root", str(root), "--workers", "1", CHAPTER)
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        assert gradebook.find_assignment(CHAPTER).duedate == deadline.replace(tzinfo=None)
        scores = {}
        for student in ("alice", "bob"):
            handed_in = gradebook.find_submission(CHAPTER, student)
            assert handed_in.timestamp == received[before[student]]
            assert handed_in.total_seconds_late == 0
            scores[student] = handed_in.score
    assert scores["alice"] == scores["bob"] + 1, f"bob's perplexity (1 point) fails: {scores}"

    set_deadlines(root, {})
    out = course("collect", "--root", str(root), "--from-server")
    assert "late" not in out
    assert (submitted / "alice" / CHAPTER / name).read_bytes() == buggy.read_bytes(), "the latest"
    assert (submitted / "carol" / CHAPTER / name).read_bytes() == right.read_bytes()
    assert json.loads((root / "collected.json").read_text())["_late"] == []
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        assert gradebook.find_assignment(CHAPTER).duedate is None


def test_collect_from_server_takes_no_folder(tmp_path):
    command = [
        sys.executable,
        "-m",
        "autograder.cli.instructor",
        "collect",
        "--root",
        str(tmp_path),
    ]
    done = subprocess.run(
        [*command, "--from-server", str(tmp_path)], capture_output=True, text=True
    )
    assert done.returncode == 2 and "takes no folder" in done.stderr
