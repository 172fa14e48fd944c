"""What the server does, apart from HTTP: authenticate, accept a submission, list and show results.

The API (`app.py`) and the web pages call these. Every method is synchronous (database work);
from a request handler, run it in the thread pool (`starlette.concurrency.run_in_threadpool`) so
that the event loop, and with it `GET /api/health`, never waits for the database. `receive` (async)
is the one path of an upload, for both: one at a time per person, the queue bound and the hourly
limit checked before the notebook is read, the notebook parsed in a bounded pool, then stored.
"""

import contextlib
import datetime as dt
import hashlib
import math
import secrets
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
from sqlalchemy import func, select
from sqlalchemy.orm import defer, joinedload
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request

from autograder.server import class_report, tokens
from autograder.server.db import PENDING, Person, Submission, database_url, now, open_database
from autograder.server.grading_loop import GradingLoop, released_chapters
from autograder.server.uploads import (
    Fields,
    Gate,
    Refused,
    Upload,
    check_notebook,
    read_upload,
)

HOUR = dt.timedelta(hours=1)
COSTLY = (408, 413, 422)  # refusals after the server read or parsed an upload: counted per student
LARGEST_ID = 2**63 - 1  # the database's integers: a larger id is no submission (not an error)


@dataclass(frozen=True)
class Settings:
    """How the server runs (the command line's options)."""

    root: Path  # the course directory (released chapters, the nbgrader configuration)
    per_hour: int = 6  # accepted submissions per student and chapter in any hour
    max_bytes: int = 10_000_000  # the largest notebook accepted
    scheduler: str | None = None  # a running Dask scheduler; None: a local cluster
    db: str | None = None  # a SQLAlchemy URL; None: $DATABASE_URL, else COURSE/submissions.db
    workers: int | None = None  # local cluster: worker processes (default: one per core)
    queue: int = 500  # submissions queued or grading at most; beyond, uploads get 503
    waiting: int = 3  # one student's submissions queued or grading at most; beyond, 409
    sandboxed: bool = True  # every run of student code in the OS sandbox (always, when served)
    body_seconds: float = 120.0  # an upload not received in full by then gets 408, its slot freed
    refused_per_hour: int = 20  # one student's uploads refused (408, 413, 422) or cut off an hour

    def __post_init__(self) -> None:
        for name in ("per_hour", "max_bytes", "queue", "waiting", "refused_per_hour"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if not self.body_seconds > 0:
            raise ValueError(f"body_seconds must be positive, got {self.body_seconds}")


class Service:
    """The server's state: its database, its grading loop, and the lock new submissions take."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.root = Path(settings.root)
        self.sessions = open_database(database_url(self.root, settings.db))
        self.loop = GradingLoop(
            self.root, self.sessions, settings.scheduler, settings.workers, settings.sandboxed
        )
        self._accepting = threading.Lock()  # the rate limit and queue bound, checked and kept
        self._receiving: set[int] = set()  # people whose upload is being read or checked now
        self._receiving_lock = threading.Lock()
        self._refused: dict[int, deque[float]] = {}  # person: monotonic times of costly refusals

    def released(self) -> set[str]:
        """The chapters students may submit now."""
        return released_chapters(self.root)

    def authenticate(self, token: str | None) -> Person | None:
        """The person whose current token this is, or None."""
        with self.sessions() as session:
            return tokens.authenticate(session, token)

    def check_queue(self, person: Person) -> None:
        """Refused (409) when `person` has `waiting` submissions waiting, (503) when the queue is full:
        checked before an upload is read, and again after."""
        with self.sessions() as session:
            self._check_queue(session, person)

    def _check_queue(self, session: object, person: Person) -> None:
        pending = select(func.count()).select_from(Submission).where(Submission.status.in_(PENDING))
        theirs = session.scalar(pending.where(Submission.person_id == person.id))
        if theirs >= self.settings.waiting:
            raise Refused(
                409,
                f"{theirs} submissions of yours are waiting to be graded already: submit again "
                "once one of them is graded",
                {"Retry-After": "30"},
            )
        everyone = session.scalar(pending)
        if everyone >= self.settings.queue:
            raise Refused(
                503,
                f"the grading queue is full ({everyone} submissions waiting); try again in a minute",
                {"Retry-After": "60"},
            )

    @contextlib.contextmanager
    def receiving(self, person: Person) -> Iterator[None]:
        """One upload at a time per person: Refused (409) while another of theirs is being received."""
        with self._receiving_lock:
            if person.id in self._receiving:
                raise Refused(
                    409,
                    "another upload of yours is still being received or checked: wait for its "
                    "answer, then submit again",
                    {"Retry-After": "5"},
                )
            self._receiving.add(person.id)
        try:
            yield
        finally:
            with self._receiving_lock:
                self._receiving.discard(person.id)

    def check_refused(self, person: Person) -> None:
        """Refused (429 with Retry-After) once `refused_per_hour` uploads of theirs were refused after reading in the last hour."""
        limit = self.settings.refused_per_hour
        with self._receiving_lock:
            times = self._refused.get(person.id, deque())
            while times and times[0] <= time.monotonic() - HOUR.total_seconds():
                times.popleft()
            if len(times) >= limit:
                wait = times[len(times) - limit] + HOUR.total_seconds() - time.monotonic()
                raise Refused(
                    429,
                    f"{limit} uploads of yours in the last hour were refused (too large, too "
                    "slow, cut off or not a readable notebook); try again in "
                    f"{math.ceil(wait)} s",
                    {"Retry-After": str(max(1, math.ceil(wait)))},
                )

    def note_refused(self, person: Person) -> None:
        """Count one upload of `person` refused after the server read or parsed it."""
        with self._receiving_lock:
            self._refused.setdefault(person.id, deque()).append(time.monotonic())

    def check_rate(self, person: Person, chapter: str) -> None:
        """Refused (429 with Retry-After) once the hourly limit for this chapter is reached: before an upload is read."""
        with self.sessions() as session:
            self._check_rate(session, person, chapter)

    def _check_rate(self, session: object, person: Person, chapter: str) -> None:
        """429 with Retry-After once `per_hour` submissions of this chapter were accepted in the last hour."""
        since = now() - HOUR
        times = session.scalars(
            select(Submission.submitted_at)
            .where(
                Submission.person_id == person.id,
                Submission.chapter == chapter,
                Submission.submitted_at > since,
            )
            .order_by(Submission.submitted_at)
        ).all()
        if len(times) >= self.settings.per_hour:
            wait = (times[len(times) - self.settings.per_hour] + HOUR - now()).total_seconds()
            raise Refused(
                429,
                f"{self.settings.per_hour} submissions of {chapter} in the last hour already; "
                f"try again in {math.ceil(wait)} s",
                {"Retry-After": str(max(1, math.ceil(wait)))},
            )

    def accept(self, person: Person, upload: Upload) -> dict:
        """Store the submission (committed before this returns) and queue it; its id and status."""
        if person.instructor:
            raise Refused(403, "an instructor's token does not submit notebooks")
        with self._accepting, self.sessions() as session:
            self._check_rate(session, person, upload.chapter)
            self._check_queue(session, person)
            submission = Submission(
                person_id=person.id,
                chapter=upload.chapter,
                notebook=upload.notebook,
                sha256=hashlib.sha256(upload.notebook).hexdigest(),
                seed=secrets.randbits(31),  # the hidden cases' seed: fixed now, same on a re-grade
                submitted_at=now(),
                status="queued",
            )
            session.add(submission)
            session.commit()
            answer = {"id": submission.id, "status": submission.status}
        self.loop.wake()
        return answer

    def _visible(self, person: Person, page: bool = False) -> object:
        """The submissions `person` may see: their own (an instructor: everyone's); no notebook bytes."""
        hidden = [defer(Submission.notebook)] + ([] if page else [defer(Submission.feedback)])
        query = select(Submission).options(*hidden, joinedload(Submission.person))
        return query if person.instructor else query.where(Submission.person_id == person.id)

    def submissions(self, person: Person) -> list[dict]:
        """The submissions `person` may see, newest first."""
        with self.sessions() as session:
            rows = session.scalars(
                self._visible(person).order_by(Submission.submitted_at.desc(), Submission.id.desc())
            )
            return [row.summary() for row in rows]

    def get(self, person: Person, submission_id: int) -> dict | None:
        """One submission `person` may see, or None (unknown, or someone else's)."""
        if not 0 < submission_id <= LARGEST_ID:
            return None
        with self.sessions() as session:
            row = session.scalar(self._visible(person).where(Submission.id == submission_id))
            return None if row is None else row.summary()

    def feedback(self, person: Person, submission_id: int) -> tuple[dict, str | None] | None:
        """(summary, feedback page or None while there is none) of a submission `person` may see."""
        if not 0 < submission_id <= LARGEST_ID:
            return None
        with self.sessions() as session:
            row = session.scalar(
                self._visible(person, page=True).where(Submission.id == submission_id)
            )
            if row is None:
                return None
            return row.summary(), row.feedback

    def latest(self) -> list[dict]:
        """Every student's latest submission per chapter (the instructor's view), by student and chapter."""
        with self.sessions() as session:
            newest = (
                select(func.max(Submission.id))
                .group_by(Submission.person_id, Submission.chapter)
                .scalar_subquery()
            )
            rows = session.scalars(
                select(Submission)
                .where(Submission.id.in_(newest))
                .options(
                    defer(Submission.notebook),
                    defer(Submission.feedback),
                    joinedload(Submission.person),
                )
            )
            return sorted(
                (row.summary() for row in rows), key=lambda s: (s["student"], s["chapter"])
            )

    def class_rows(self) -> list[dict]:
        """The class report's diagnoses (diagnoses.csv's rows) of the latest graded submissions."""
        with self.sessions() as session:
            return [row.as_dict() for row in class_report.live_rows(session)]

    def class_page(self) -> str:
        """The class report page of the latest graded submissions (the instructor's live view)."""
        with self.sessions() as session:
            return class_report.live_page(session)


async def read_within(
    service: Service,
    request: Request,
    gate: Gate,
    check_fields: Fields | None,
) -> Upload:
    """`read_upload`, Refused (408) when the body has not come in full within `body_seconds`."""
    limit = service.settings.body_seconds
    try:
        with anyio.fail_after(limit):  # a stalled body would hold this student's slot
            return await read_upload(
                request, service.settings.max_bytes, service.released(), gate, check_fields
            )
    except TimeoutError:
        raise Refused(408, f"the upload was not received in full within {limit:g} s") from None


async def receive(
    service: Service,
    request: Request,
    person: Person,
    reading: anyio.CapacityLimiter,
    check_fields: Fields | None = None,
) -> dict:
    """Take `person`'s upload in `request`: its id and status once stored; Refused saying why not.

    Refused before anything is read: an instructor (403), another upload of theirs still being
    received or `waiting` of theirs waiting to be graded (409), a full queue (503), and (429) once
    `refused_per_hour` of their uploads were refused after reading in the last hour. Refused as
    soon as the file part's headers came, before its data is read: by `check_fields` of the fields
    sent before it (the web form's CSRF token), for a file name that is no released chapter (422),
    by the hourly limit (429). Then the size cap (413) while reading, and 408 when the body has not
    come in full within the settings' `body_seconds`; the notebook parsed with at most `reading`'s
    number of others at once (422), stored. Each 408, 413 and 422 (a wrong file name too), and each
    upload whose client went before its end, counts against `refused_per_hour`, kept in this
    process's memory: it cost the server a read or a parse.
    """
    if person.instructor:
        raise Refused(403, "an instructor's token does not submit notebooks")
    with service.receiving(person):
        service.check_refused(person)
        await run_in_threadpool(service.check_queue, person)

        async def gate(chapter: str) -> None:
            await run_in_threadpool(service.check_rate, person, chapter)

        try:
            upload = await read_within(service, request, gate, check_fields)
            await anyio.to_thread.run_sync(check_notebook, upload.notebook, limiter=reading)
        except Refused as refusal:
            if refusal.status in COSTLY:
                service.note_refused(person)
            raise
        except ClientDisconnect:  # sent part of a body, then went: that read counts too
            service.note_refused(person)
            raise
        return await run_in_threadpool(service.accept, person, upload)
