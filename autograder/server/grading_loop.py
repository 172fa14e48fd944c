"""The grading loop: queued submissions handed to the Dask cluster, each result written once.

One thread of the server runs it. It starts the cluster (`cluster.grading_client`: a local one by
default, or `--scheduler`'s), then repeatedly: it takes the oldest queued submissions, at most
one per student at a time and a few per worker, claims each (`claim`: a conditional update from
`queued` to `grading` that counts the attempt, so of two server processes on one database only one
takes a row) and submits one task (`grading.grade_with_feedback`, with the seed fixed at upload, so
that grading it again gives the same result); each finished task's result is written with a
conditional update (only a row still `grading` under that same attempt takes it: `store_result`),
so no submission is graded twice into different results, even when another process queued it
again and graded it meanwhile.

One retry mechanism, the database's: a submission without a result is queued again and claimed
anew, each claim counted in `attempts`, at most MAX_ATTEMPTS in all. It is queued again when its
worker died (the local cluster runs each task once: Dask's own re-runs are turned off), when the
cluster lost the task, and at start for rows left `queued` or `grading` by an earlier run (a
crash). A submission for which the grader itself failed, or claimed MAX_ATTEMPTS times without a
result, ends `failed` with a flag saying why.
"""

import functools
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import CancelledError
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, joinedload, sessionmaker

from autograder.course.autograde import release_data
from autograder.course.cluster import ATTEMPTS, GradingTasks, grading_client
from autograder.course.printable import printable
from autograder.course.task import Job, Release
from autograder.server.db import Submission, now
from autograder.server.grading import ServerGrade, grade_with_feedback

MAX_ATTEMPTS = ATTEMPTS  # claims of a submission without a result before it is failed
PER_WORKER = 2  # tasks in flight per worker thread (the next one is ready when one finishes)
NICE = 10  # how much lower than the server's a grading worker's CPU priority is


def released_chapters(root: Path) -> set[str]:
    """The chapters released in the course: `release/<chapter>/<chapter>.ipynb` exists."""
    folder = Path(root) / "release"
    if not folder.is_dir():
        return set()
    return {path.name for path in folder.iterdir() if (path / f"{path.name}.ipynb").is_file()}


@functools.cache
def _yield_to_the_server() -> None:
    """Lower this worker's CPU priority (and so its grading processes'), once.

    Grading is the server's batch work: when the host is busy, the server answering students
    (and `GET /api/health`) gets the CPU first.
    """
    os.nice(NICE)


def grade_at_low_priority(
    job: Job, release: Release, seed: int, sandboxed: bool, scratch: str | None
) -> ServerGrade:
    """The server's grading, as a worker runs it: at a lower priority than the server's."""
    _yield_to_the_server()
    return grade_with_feedback(job, release, seed, sandboxed, scratch)


@dataclass
class GradingLoop:
    """The thread that grades what the server queued; `wake()` after queueing something."""

    root: Path
    sessions: sessionmaker
    scheduler: str | None = None
    workers: int | None = None
    sandboxed: bool = True
    log: Callable[[str], None] = field(default=lambda line: print(line, file=sys.stderr))
    ready: threading.Event = field(default_factory=threading.Event)  # the cluster is up
    threads: int = 0  # the cluster's grading threads, once it is up
    _wake: threading.Event = field(default_factory=threading.Event)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _inflight: dict = field(default_factory=dict)  # future -> (submission id, attempt)

    def start(self) -> None:
        """Queue again what an earlier run left queued or grading; start the thread."""
        with self.sessions() as session:
            waiting = requeue(session)
        if waiting:
            self.log(f"queued again: {waiting} submissions left waiting by an earlier run")
        self._thread = threading.Thread(target=self._main, name="grading-loop", daemon=True)
        self._thread.start()

    def state(self) -> str:
        """Starting until the cluster is up, ready while the loop grades, then stopped."""
        if self._stop.is_set() or (self._thread is not None and not self._thread.is_alive()):
            return "stopped"
        return "ready" if self.ready.is_set() else "starting"

    def wake(self) -> None:
        """Look for queued submissions now."""
        self._wake.set()

    def stop(self, timeout: float = 60) -> None:
        """Stop handing out work and close the cluster (rows still grading are queued at next start)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _main(self) -> None:
        try:
            with grading_client(self.scheduler, self.workers, attempts=1) as client:
                self.threads = sum(client.nthreads().values())
                self.ready.set()
                self.log(f"grading on Dask: {client.dashboard_link}")
                tasks = GradingTasks(
                    client,
                    grade_at_low_priority,
                    release=lambda chapter: release_data(self.root, [chapter]),
                    version=self._released_at,
                    prefix="server",
                )
                while not self._stop.is_set():
                    self._collect()
                    self._dispatch(tasks)
                    self._wake.wait(1.0)
                    self._wake.clear()
        except Exception as error:  # the cluster could not start or went away: say so, stop grading
            self.log(f"ERROR: the grading loop stopped: {type(error).__name__}: {error}")
            raise

    def _released_at(self, chapter: str) -> int:
        """When the chapter was released (again): its release data is sent anew after that."""
        return (self.root / "release" / chapter / f"{chapter}.ipynb").stat().st_mtime_ns

    def _dispatch(self, tasks: GradingTasks) -> None:
        """Hand the oldest queued submissions to the cluster: one per student, a few per worker."""
        room = PER_WORKER * max(1, sum(tasks.client.nthreads().values())) - len(self._inflight)
        if room <= 0:
            return
        with self.sessions() as session:
            busy = set(
                session.scalars(select(Submission.person_id).where(Submission.status == "grading"))
            )
            queued = session.execute(  # ids only: no notebook is read but those handed out
                select(Submission.id, Submission.person_id)
                .where(Submission.status == "queued")
                .order_by(Submission.id)
            ).all()
            chosen = []
            for number, person_id in queued:
                if len(chosen) >= room:
                    break
                if person_id not in busy:
                    busy.add(person_id)
                    chosen.append(number)
            for number in chosen:
                submission = session.get(
                    Submission, number, options=[joinedload(Submission.person)]
                )
                if submission.attempts >= MAX_ATTEMPTS:
                    store_result(
                        session,
                        submission.id,
                        ServerGrade(False, None, None, [], [_gave_up(submission.attempts)]),
                        status="queued",
                    )
                    continue
                attempt = claim(session, submission.id)
                if attempt is None:  # another server process took it first
                    continue
                job = Job(submission.chapter, submission.person.name, submission.notebook)
                future = tasks.submit(
                    job, submission.seed, self.sandboxed, f"{submission.id}-{attempt}"
                )
                future.add_done_callback(lambda _: self._wake.set())
                self._inflight[future] = (submission.id, attempt)

    def _collect(self) -> None:
        """Write the result of every finished task."""
        for future in [f for f in self._inflight if f.done()]:
            submission_id, attempt = self._inflight.pop(future)
            with self.sessions() as session:
                try:
                    outcome = future.result()
                except Exception as error:
                    if _lost(error):  # its worker died, or the cluster lost it: claimed again
                        self.log(f"submission {submission_id} queued again: {type(error).__name__}")
                        queue_again(session, submission_id, attempt)
                        continue
                    why = printable(f"{type(error).__name__}: {error}", limit=2000)
                    self.log(f"submission {submission_id} could not be graded: {why}")
                    outcome = ServerGrade(False, None, None, [], [FAILED])
                store_result(session, submission_id, outcome, attempt=attempt)


def requeue(session: Session) -> int:
    """Queue again every row left `grading` (by a run that crashed); how many are queued now. Commits."""
    session.execute(
        update(Submission).where(Submission.status == "grading").values(status="queued")
    )
    session.commit()
    return session.scalar(
        select(func.count()).select_from(Submission).where(Submission.status == "queued")
    )


def queue_again(session: Session, submission_id: int, attempt: int) -> bool:
    """Queue a submission again if it is still `grading` under `attempt` (whether it was). Commits."""
    done = session.execute(
        update(Submission)
        .where(
            Submission.id == submission_id,
            Submission.status == "grading",
            Submission.attempts == attempt,
        )
        .values(status="queued")
    )
    session.commit()
    return bool(done.rowcount)


def claim(session: Session, submission_id: int) -> int | None:
    """Mark a submission `grading` if it is still `queued`: its attempt number, or None if another took it. Commits."""
    attempt = session.scalar(
        update(Submission)
        .where(Submission.id == submission_id, Submission.status == "queued")
        .values(status="grading", attempts=Submission.attempts + 1)
        .returning(Submission.attempts)
    )
    session.commit()
    return attempt


def store_result(
    session: Session,
    submission_id: int,
    outcome: ServerGrade,
    status: str = "grading",
    attempt: int | None = None,
) -> bool:
    """Store a result once: only a row still in `status` (and, given, at `attempt`) takes it (whether it did). Commits.

    A second result for the same submission (a task run again after a lost worker, or by an
    earlier server run, or by another server process that queued it again and claimed it since)
    finds the row graded already, or claimed under another attempt, and changes nothing.
    """
    held = [Submission.id == submission_id, Submission.status == status]
    if attempt is not None:
        held.append(Submission.attempts == attempt)
    finished = now()
    submitted = session.scalar(
        select(Submission.submitted_at).where(Submission.id == submission_id)
    )
    total = (finished - submitted).total_seconds() if submitted else 0.0
    on_worker = sum(outcome.stages.values())
    stages = {"waiting": max(0.0, total - on_worker), **outcome.stages, "total": total}
    done = session.execute(
        update(Submission)
        .where(*held)
        .values(
            status="graded" if outcome.graded else "failed",
            points=outcome.points,
            max_points=outcome.max_points,
            exercises=outcome.exercises,
            written=outcome.written,
            flags=[printable(flag) for flag in outcome.flags],
            feedback=outcome.feedback,
            graded_at=finished,
            stages={name: round(seconds, 3) for name, seconds in stages.items()},
            reports=outcome.reports,
        )
    )
    session.commit()
    return bool(done.rowcount)


# what the student reads when the grader itself failed (the details: the server's log)
FAILED = "could not be graded: the grader failed (the instructor finds why in the server's log)"


def _lost(error: Exception) -> bool:
    """Whether a task ended without a result of its own: its worker died, or the cluster lost it."""
    return isinstance(error, CancelledError) or type(error).__name__ == "KilledWorker"


def _gave_up(attempts: int) -> str:
    return f"could not be graded: handed to the cluster {attempts} times without a result"
