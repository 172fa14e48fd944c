"""The submission server's database and tokens, on a real SQLite file: hashes only, a new token
replaces the old, a result is stored once per submission, bad names and settings are refused.

What the database itself must do (store a result once, two server processes on one database, the
schema's upgrades with alembic) is proved on SQLite and on a real PostgreSQL server (`db_url`).
"""

import datetime as dt
import hashlib
import json
import re
import subprocess
import sys

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from conftest import REPO
from sqlalchemy import create_engine, select, text
from sqlalchemy.orm import Session

from autograder.server.db import MIGRATIONS, Base, Person, Submission, now, open_database
from autograder.server.grading import ServerGrade
from autograder.server.grading_loop import claim, queue_again, requeue, store_result
from autograder.server.service import Settings
from autograder.server.tokens import authenticate, bearer, check_name, issue
from autograder.server.uploads import (
    ENTRY_WEIGHT,
    MAX_WEIGHT,
    Refused,
    chapter_of,
    check_notebook,
    json_weight,
)


@pytest.fixture
def sessions(tmp_path):
    return open_database(f"sqlite:///{tmp_path / 'submissions.db'}")


def test_tokens_are_stored_as_hashes_and_replaced(sessions, tmp_path):
    with sessions() as session:
        first = issue(session, "alice")
        assert authenticate(session, first).name == "alice"
        second = issue(session, "alice")
        assert first != second
        assert authenticate(session, first) is None  # the earlier token stopped working
        assert authenticate(session, second).name == "alice"
        prof = issue(session, "prof", instructor=True)
        assert authenticate(session, prof).instructor
        assert not authenticate(session, second).instructor
        stored = session.scalar(select(Person.token_hash).where(Person.name == "alice"))
        assert stored == hashlib.sha256(second.encode()).hexdigest()
        for wrong in (None, "", "x", stored, second + "x", second[:-1], "é" * 43):
            assert authenticate(session, wrong) is None
    database = (tmp_path / "submissions.db").read_bytes()
    assert first.encode() not in database and second.encode() not in database
    assert bearer(f"Bearer {second}") == second and bearer(f"bearer  {second} ") == second
    assert bearer(second) is None and bearer(f"Basic {second}") is None and bearer(None) is None


def test_names_must_be_plain(sessions):
    for name in ("alice", "a.b-c_9", "S1"):
        assert check_name(name) == name
    for name in ("", "../x", "a/b", ".hidden", "a b", "x" * 65, "é", "-a"):
        with pytest.raises(ValueError, match="invalid name"):
            check_name(name)
    with sessions() as session, pytest.raises(ValueError, match="invalid name"):
        issue(session, "../../etc")


def empty_submission(session: Session, status: str) -> int:
    """A new person alice's submission (an empty notebook) in `status`, committed; its id."""
    issue(session, "alice")
    row = Submission(
        person_id=session.scalar(select(Person)).id,
        chapter="01_bigram_counting",
        notebook=b"{}",
        sha256=hashlib.sha256(b"{}").hexdigest(),
        seed=7,
        submitted_at=now(),
        status=status,
    )
    session.add(row)
    session.commit()
    return row.id


def test_a_result_is_stored_once(db_url):
    with open_database(db_url)() as session:
        number = empty_submission(session, "grading")
        first = ServerGrade(True, 7.0, 7.0, [], [], "<html>first</html>")
        second = ServerGrade(True, 5.0, 7.0, [], ["other"], "<html>second</html>")
        assert store_result(session, number, first)
        assert not store_result(session, number, second)  # graded already: nothing changes
        session.expire_all()
        stored = session.get(Submission, number)
        assert (stored.status, stored.points, stored.feedback) == (
            "graded",
            7.0,
            "<html>first</html>",
        )
        assert stored.summary()["flags"] == []


def test_settings_and_file_names_are_checked():
    for field in ("per_hour", "max_bytes", "queue", "waiting", "refused_per_hour"):
        with pytest.raises(ValueError, match=field):
            Settings(root=".", **{field: 0})
    released = {"01_bigram_counting"}
    assert chapter_of("01_bigram_counting.ipynb", released) == "01_bigram_counting"
    for name in (
        None,
        "",
        "../01_bigram_counting.ipynb",
        "01_bigram_counting",
        "02_neural_bigram.ipynb",
        "01_bigram_counting.ipynb/",
    ):
        with pytest.raises(Refused) as refused:
            chapter_of(name, released)
        assert refused.value.status == 422


def test_the_tokens_command_refuses_bad_input(tmp_path):
    command = [sys.executable, "-m", "autograder.cli.instructor", "tokens", "--root", str(tmp_path)]
    for extra, message in (
        ([], "one or more student names"),
        (["../x"], "invalid name"),
        (["alice", "--submit-toml", str(tmp_path / "t")], "needs --server"),
        (["alice", "--server", "ftp://x"], "expected the server's address"),
    ):
        done = subprocess.run([*command, *extra], cwd=REPO, capture_output=True, text=True)
        assert done.returncode == 2 and message in done.stderr, done.stderr
    missing = [*command[:-1], str(tmp_path / "nowhere"), "alice"]
    done = subprocess.run(missing, cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 2 and "no course directory" in done.stderr
    done = subprocess.run(
        [*command, "alice", "--instructor", "prof"], cwd=REPO, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert [line.split(",")[0] for line in done.stdout.splitlines()] == ["alice", "prof"]


def test_two_server_processes_on_one_database_store_one_result(db_url):
    """Two engines on one database (two server processes): one claims a row, a stale result is refused."""
    first, second = open_database(db_url), open_database(db_url)
    with first() as session:
        number = empty_submission(session, "queued")
    with first() as a, second() as b:
        assert claim(a, number) == 1
        assert claim(b, number) is None  # already grading: the second process does not take it
        assert requeue(b) == 1  # the second process starts (after a crash, it thinks): queued again
        assert claim(b, number) == 2
        assert claim(a, number) is None
        assert not queue_again(a, number, attempt=1)  # its worker died, it thinks: not its claim
        late = ServerGrade(True, 7.0, 7.0, [], [], "<html>first process</html>")
        assert not store_result(a, number, late, attempt=1)  # its claim was taken over: refused
        mine = ServerGrade(True, 5.0, 7.0, [], [], "<html>second process</html>")
        assert store_result(b, number, mine, attempt=2)
        assert not store_result(a, number, late, attempt=1)
        assert not store_result(b, number, late, attempt=2)  # stored once
    with first() as session:
        stored = session.get(Submission, number)
        assert (stored.status, stored.points, stored.attempts) == ("graded", 5.0, 2)
        assert stored.feedback == "<html>second process</html>"


def test_a_guessed_token_is_only_ever_looked_up_and_compared_by_its_hash(sessions, monkeypatch):
    """No timing of ours depends on the stored token's characters: the database and the comparison see SHA-256s."""
    from sqlalchemy import event

    from autograder.server import tokens

    with sessions() as session:
        real = issue(session, "alice")
        guesses = [real[:-1] + ("A" if real[-1] != "A" else "B"), real[:20] + "x" * 23, real]
        seen, compared = [], []
        engine = session.get_bind()

        def record(_conn, _cursor, statement, parameters, _context, _many):
            seen.append(repr(parameters))

        real_compare = tokens.hmac.compare_digest
        monkeypatch.setattr(
            tokens.hmac,
            "compare_digest",
            lambda a, b: compared.append((a, b)) or real_compare(a, b),
        )
        event.listen(engine, "before_cursor_execute", record)
        try:
            found = [authenticate(session, guess) for guess in guesses]
        finally:
            event.remove(engine, "before_cursor_execute", record)
    assert [person and person.name for person in found] == [None, None, "alice"]
    assert seen, "no query was recorded"
    for guess in guesses:
        assert not any(guess in parameters for parameters in seen), "a guess reached the database"
        assert not any(guess in pair for pair in compared), "a guess was compared as it is"
    assert all(
        re.fullmatch("[0-9a-f]{64}", a) and re.fullmatch("[0-9a-f]{64}", b) for a, b in compared
    )


def test_json_weight_counts_list_items_once_and_object_entries_four_times_and_stops_past_its_limit():
    assert ENTRY_WEIGHT == 4
    assert json_weight({"a": [1, "x", {"b": None}], "c": {}}, 100) == 1 + 4 + 4 + 3 + 4
    assert json_weight([[0] * 10] * 10, 1000) == 111
    assert json_weight({"k": [0] * 10}, 1000) == 15
    assert json_weight([0] * 10**6, 50) == 51  # stops as soon as it is past the limit


CELL = {"cell_type": "code", "id": "a", "metadata": {}, "outputs": [], "execution_count": None}
NOTEBOOK = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}}


def refused_before_nbformat(monkeypatch: pytest.MonkeyPatch, notebook: dict) -> Refused:
    """The 422 `check_notebook` gives `notebook`, which nbformat must never have read."""
    import autograder.judge.notebook

    def never(path: object) -> None:
        raise AssertionError("nbformat read a notebook past the limit")

    monkeypatch.setattr(autograder.judge.notebook, "read_notebook", never)
    with pytest.raises(Refused) as refused:
        check_notebook(json.dumps(notebook).encode())
    assert refused.value.status == 422
    return refused.value


def test_a_notebook_weighing_more_than_the_server_reads_is_refused_before_nbformat(monkeypatch):
    fits = {**NOTEBOOK, "cells": [{**CELL, "source": ["x\n"] * (MAX_WEIGHT - 50)}]}
    check_notebook(json.dumps(fits).encode())  # just below the limit: nbformat reads it
    many_types = {f"text/x{i}": "" for i in range(MAX_WEIGHT // ENTRY_WEIGHT)}
    result = {"output_type": "execute_result", "data": many_types, "metadata": {}}
    for hostile in (
        {**NOTEBOOK, "cells": [{**CELL, "source": ["x\n"] * MAX_WEIGHT}]},  # one long cell
        {**NOTEBOOK, "metadata": {"x": [[0] * 10] * (MAX_WEIGHT // 10)}},  # notebook metadata
        {**NOTEBOOK, "cells": [{**CELL, "source": "", "metadata": dict.fromkeys(many_types, 0)}]},
        {
            **NOTEBOOK,
            "cells": [{**CELL, "source": "", "outputs": [{**result, "execution_count": 1}]}],
        },
    ):
        refusal = refused_before_nbformat(monkeypatch, hostile)
        assert (
            "200,000 JSON values" in refusal.detail and "clear very long outputs" in refusal.detail
        )


@pytest.mark.parametrize("version", [3, 2, "4", None])
def test_a_notebook_of_another_nbformat_than_4_is_refused_before_nbformat(monkeypatch, version):
    old = {"nbformat": version, "nbformat_minor": 0, "metadata": {}}
    old["worksheets"] = [{"metadata": {}, "cells": [{"cell_type": "heading"}] * 99_000}]
    refusal = refused_before_nbformat(monkeypatch, old)  # nbformat took 5 CPU-s on version 3
    assert "nbformat 4" in refusal.detail and json.dumps(version) in refusal.detail


def test_a_database_from_before_alembic_gains_the_columns_and_keeps_its_rows(db_url):
    open_database(db_url)
    engine = create_engine(db_url)
    with engine.begin() as connection:  # the tables before `stages`, `written`, `reports`, alembic
        for statement in (
            "DROP TABLE alembic_version",
            "DROP TABLE handins",
            "ALTER TABLE submissions DROP COLUMN stages",
            "ALTER TABLE submissions DROP COLUMN written",
            "ALTER TABLE submissions DROP COLUMN reports",
        ):
            connection.execute(text(statement))
        connection.execute(
            text(
                "INSERT INTO people (name, instructor, token_hash, token_issued_at) "
                "VALUES ('ada', :no, 'h', :at)"
            ),
            {"no": False, "at": dt.datetime(2026, 12, 1)},
        )
        connection.execute(
            text(
                "INSERT INTO submissions (person_id, chapter, notebook, sha256, seed, "
                "submitted_at, status, attempts) SELECT id, '01_bigram_counting', :notebook, "
                "'s', 3, :at, 'graded', 1 FROM people"
            ),
            {"notebook": b"\x00", "at": dt.datetime(2026, 12, 1)},
        )
    engine.dispose()
    sessions = open_database(db_url)
    with sessions() as session:
        (old,) = session.scalars(select(Submission)).all()
        assert old.summary()["stages"] == {} and old.summary()["seed"] == 3
        assert old.summary()["written"] == []
        number = empty_submission(session, "grading")
        written = [{"answer": "written_context", "points": 2.0, "earned": None}]
        kept = [{"exercise": "bigram_counts", "earned": 2}]  # the trusted reports, as data
        outcome = ServerGrade(
            True,
            7.0,
            7.0,
            [],
            [],
            "<html></html>",
            2.0,
            {"grade": 1.5, "feedback": 0.5},
            written,
            kept,
        )
        assert store_result(session, number, outcome)
        session.expire_all()
        assert session.get(Submission, number).summary()["written"] == written
        assert old.reports is None and session.get(Submission, number).reports == kept
        stages = session.get(Submission, number).summary()["stages"]
        assert list(stages) == ["waiting", "grade", "feedback", "total"], stages
        assert stages["waiting"] == max(0.0, round(stages["total"] - 2.0, 3))


# a server process starting: imports, waits at a barrier of files until all are there, opens
OPEN_AT_ONCE = """
import sys, time
from pathlib import Path
from autograder.server.db import open_database
url, barrier, me, count = sys.argv[1], Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
(barrier / me).touch()
while len(list(barrier.iterdir())) < count:
    time.sleep(0.001)
open_database(url)
"""


def test_two_server_processes_starting_at_once_upgrade_the_schema_once(db_url, tmp_path):
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    starting = [
        subprocess.Popen(
            [sys.executable, "-c", OPEN_AT_ONCE, db_url, str(barrier), str(n), "2"],
            cwd=REPO,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(2)
    ]
    for process in starting:
        assert process.wait(timeout=120) == 0, process.stderr.read()[-3000:]
    engine = create_engine(db_url)
    with engine.connect() as connection:
        versions = connection.execute(text("SELECT version_num FROM alembic_version")).all()
    engine.dispose()
    assert [version for (version,) in versions] == [
        ScriptDirectory(str(MIGRATIONS)).get_current_head()
    ]


def test_the_migrations_make_the_tables_the_models_declare(db_url):
    """What alembic's revisions build is what the models (and `handins`) describe: no difference."""
    from autograder.server import handin  # noqa: F401  its table joins Base.metadata

    open_database(db_url)
    engine = create_engine(db_url)
    with engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    engine.dispose()
    assert differences == []
    assert {"people", "submissions", "handins"} <= set(Base.metadata.tables)
