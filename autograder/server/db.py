"""The submission server's database (SQLAlchemy 2): people with token hashes, and submissions.

SQLite in the course directory by default (`COURSE/submissions.db`, write-ahead logging so that
readers never wait for the grading loop's writes); any SQLAlchemy URL (PostgreSQL) by `--db` or
`DATABASE_URL`. Its schema is alembic's (migrations/), upgraded whenever it is opened. Nothing here
touches nbgrader's gradebook: the server's results live here alone.
"""

import datetime as dt
import os
from pathlib import Path

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    create_engine,
    event,
    text,
)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship, sessionmaker
from sqlalchemy.pool import NullPool

FILE = "submissions.db"
STATUSES = ("queued", "grading", "graded", "failed")
PENDING = ("queued", "grading")  # what a start re-queues, and what the bounded queue counts


def now() -> dt.datetime:
    """The current time in UTC (naive, as SQLite keeps it; every time in this database is UTC)."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def iso(moment: dt.datetime | None) -> str | None:
    """A stored UTC time as ISO 8601 with its zone (`2026-12-01T14:00:00.123456Z`), or None."""
    return None if moment is None else moment.isoformat() + "Z"


class Base(DeclarativeBase):
    """The server's tables."""


class Person(Base):
    """A student or an instructor, known by a name and the hash of their current token."""

    __tablename__ = "people"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    instructor: Mapped[bool] = mapped_column(Boolean, default=False)
    # sha256 of the current token (hex); a new token replaces it, so the old one stops working
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    token_issued_at: Mapped[dt.datetime] = mapped_column(DateTime, default=now)

    submissions: Mapped[list["Submission"]] = relationship(back_populates="person")


class Submission(Base):
    """One uploaded notebook, as received (bytes and hash), and what grading it gave."""

    __tablename__ = "submissions"
    __table_args__ = (
        Index("ix_submissions_person_chapter_time", "person_id", "chapter", "submitted_at"),
        Index("ix_submissions_status", "status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("people.id"))
    chapter: Mapped[str] = mapped_column(String(100))
    notebook: Mapped[bytes] = mapped_column(LargeBinary)
    sha256: Mapped[str] = mapped_column(String(64))
    seed: Mapped[int] = mapped_column(Integer)  # the hidden cases' seed, fixed at upload
    submitted_at: Mapped[dt.datetime] = mapped_column(DateTime, default=now)
    status: Mapped[str] = mapped_column(String(10), default="queued")
    attempts: Mapped[int] = mapped_column(Integer, default=0)  # times handed to the cluster
    points: Mapped[float | None] = mapped_column(Float, nullable=True)
    max_points: Mapped[float | None] = mapped_column(Float, nullable=True)
    exercises: Mapped[list | None] = mapped_column(JSON, nullable=True)
    written: Mapped[list | None] = mapped_column(
        JSON, nullable=True
    )  # answers the instructor grades
    flags: Mapped[list | None] = mapped_column(JSON, nullable=True)
    feedback: Mapped[str | None] = mapped_column(Text, nullable=True)  # the feedback page (HTML)
    graded_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    # seconds each stage took: waiting (upload to the worker's start), scan, grade, record,
    # feedback (on the worker) and total (upload to result)
    stages: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    # the trusted grader's reports as data (`judge.report.as_json`, one per exercise): what the
    # instructor's class report counts
    reports: Mapped[list | None] = mapped_column(JSON, nullable=True)

    person: Mapped[Person] = relationship(back_populates="submissions")

    def summary(self) -> dict:
        """The API's view of this submission; the seed of its hidden cases once it is graded."""
        return {
            "id": self.id,
            "student": self.person.name,
            "chapter": self.chapter,
            "status": self.status,
            "points": self.points,
            "max_points": self.max_points,
            "exercises": list(self.exercises or []),
            "written": list(self.written or []),
            "flags": list(self.flags or []),
            "submitted_at": iso(self.submitted_at),
            "graded_at": iso(self.graded_at),
            "seed": self.seed if self.status in ("graded", "failed") else None,
            "stages": dict(self.stages or {}),
        }


def database_url(root: Path, url: str | None = None) -> str:
    """`url`, else $DATABASE_URL, else the SQLite file in the course directory."""
    return url or os.environ.get("DATABASE_URL") or f"sqlite:///{Path(root).resolve() / FILE}"


def _sqlite_pragmas(connection: object, _record: object) -> None:
    """Write-ahead logging (readers do not wait for a writer) and a patient lock wait."""
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")  # a 202 is sent only once the row is on disk
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


MIGRATIONS = Path(__file__).with_name("migrations")  # alembic's scripts: env.py and versions/
ADVISORY_LOCK = 7_147_000_053  # PostgreSQL: the key the server's schema upgrades queue on


def _driver_begins_nothing(connection: object, _record: object) -> None:
    """SQLite: pysqlite opens no transaction of its own (none before DDL): `BEGIN IMMEDIATE` does."""
    connection.isolation_level = None


def _begin_immediate(connection: object) -> None:
    """SQLite: take the write lock at BEGIN, so that one process upgrades the schema at a time."""
    connection.exec_driver_sql("BEGIN IMMEDIATE")


def upgrade(url: str) -> None:
    """Bring the database at `url` to the newest schema with alembic, one server process at a time.

    The upgrade runs in one transaction that holds the database's write lock (SQLite's `BEGIN
    IMMEDIATE`, PostgreSQL's advisory lock): a second process starting at once waits, then finds
    the schema current (other databases get no lock: start one server first). A database made
    before alembic (no `alembic_version` table) is upgraded too: the first revision creates only
    what it lacks.
    """
    from alembic import command
    from alembic.config import Config

    engine = create_engine(url, future=True, poolclass=NullPool)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "connect", _driver_begins_nothing)
        event.listen(engine, "begin", _begin_immediate)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    try:
        with engine.begin() as connection:
            if engine.dialect.name == "postgresql":
                connection.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": ADVISORY_LOCK}
                )
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
    finally:
        engine.dispose()


def open_database(url: str) -> sessionmaker:
    """The database at `url` upgraded to the newest schema; a factory of sessions on it."""
    upgrade(url)
    engine: Engine = create_engine(url, future=True, pool_pre_ping=True)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return sessionmaker(engine, expire_on_commit=False)
