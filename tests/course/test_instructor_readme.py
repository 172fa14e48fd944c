"""The README's instructor steps, in its order, from no course directory: `make course`, the deadlines
set before the first release (kept as written), `make release`, `make student-kit` and `make tokens`
with the README's SERVER_URL (each student's submit.toml, read by the kit's client, its token the
server's). The steps after them (`make serve`, `make collect FROM_SERVER=1`, autograde, feedback,
export) are followed on a real server by tests/server/test_collect_from_server.py; `make report` by
tests/course/test_class_report.py.
"""

import datetime as dt
import os
import shlex
import shutil
import stat
import subprocess
import tomllib

import pytest
from conftest import REPO

from autograder.course.deadlines import deadlines
from autograder.kit.client import settings
from autograder.server.db import database_url, open_database
from autograder.server.tokens import authenticate

pytestmark = pytest.mark.slow

CHAPTER = "01_bigram_counting"
STEPS = ["course", "release", "student-kit", "tokens", "serve"]
STEPS += ["collect", "autograde", "feedback", "export", "report"]


def readme_steps() -> list[list[str]]:
    """The `make` commands of the README's instructor block, in order, each as its words."""
    section = (REPO / "README.md").read_text().split("\n## For instructors\n")[1]
    block = section.split("```bash\n")[1].split("```")[0]
    return [
        shlex.split(line, comments=True) for line in block.splitlines() if line.startswith("make ")
    ]


def make(words: list[str], **variables: object) -> str:
    """A README command, with `variables` added (where this test's course, kit and tokens go)."""
    done = subprocess.run(
        [*words, "--no-print-directory", *(f"{key}={value}" for key, value in variables.items())],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("PROOF_LM_")},
    )
    assert done.returncode == 0, f"{words}: {done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def test_the_readmes_instructor_steps_set_up_a_course_in_one_pass(tmp_path):
    steps = readme_steps()
    assert [words[1] for words in steps] == STEPS
    course, kit, tokens = tmp_path / "course", tmp_path / "student-kit", tmp_path / "tokens"
    here = {"COURSE": course, "CHAPTERS": CHAPTER}

    make(steps[0], **here)  # make course
    config = course / "nbgrader_config.py"
    assert "DEADLINES = {}\n" in config.read_text() and not (course / "release").exists()
    written = config.read_text().replace(
        "DEADLINES = {}\n", f'DEADLINES = {{\n    "{CHAPTER}": "2026-01-05T09:00:00Z",\n}}\n'
    )
    config.write_text(written)

    make(steps[1], **here)  # make release: the deadlines set before it are nbgrader's due dates
    assert (course / "release" / CHAPTER / f"{CHAPTER}.ipynb").is_file()
    assert config.read_text() == written, "release rewrote the instructor's file"
    assert deadlines(course) == {CHAPTER: dt.datetime(2026, 1, 5, 9, tzinfo=dt.UTC)}

    server = dict(word.split("=", 1) for word in steps[2][2:])["SERVER_URL"]
    make(steps[2], KIT=kit, **here)  # make student-kit SERVER_URL=...
    assert tomllib.loads((kit / "submit.toml").read_text()) == {"server": server, "token": ""}
    # the deadline passed: the kit's library may carry chapter 01's answers, and its README says so
    assert "This kit was built before the first deadline." not in (kit / "README.md").read_text()

    students = dict(word.split("=", 1) for word in steps[3][2:])["STUDENTS"].split()
    make(steps[3], TOKENS=tokens, **here)  # make tokens STUDENTS=... SERVER_URL=...
    sessions = open_database(database_url(course))
    for student in students:
        own = tokens / student / "submit.toml"
        assert stat.S_IMODE(own.stat().st_mode) == 0o600 and own.stat().st_uid == os.getuid()
        shutil.copyfile(own, kit / "submit.toml")  # the student puts it into the kit's folder
        address, token = settings(kit / "submit.toml")
        assert address == server
        with sessions() as session:
            assert authenticate(session, token).name == student
