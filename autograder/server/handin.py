"""Hand-ins from the submission server: each student's latest submission made by the chapter's deadline.

    python -m autograder.cli.instructor collect --root COURSE --from-server [--db URL]

For every released chapter and every student of the server's database, the latest submission made
by the chapter's deadline (`DEADLINES`, `autograder/course/deadlines.py`; a chapter without one: the
latest) is written to a scratch folder as `<student>/<chapter>.ipynb` and collected from there by
`collect`, so every rule of a hand-in applies (regular notebooks only, the size cap, safe names,
refusals for that hand-in alone; a student name in the database that is not a plain name, as
`tokens` makes them, is refused before it comes near a path). Beside each collected notebook, nbgrader's `timestamp.txt` holds
the time the server received it, which autograde writes into the gradebook (so nbgrader's own late
machinery sees it on time). Submissions made after the deadline stay in the database and are
marked late there (table `handins`), in COURSE/collected.json and on the command line.
"""

import datetime as dt
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Boolean, DateTime, ForeignKey, String, delete, select
from sqlalchemy.orm import Mapped, mapped_column

from autograder.course.collect import Collected, Refusal, collect
from autograder.course.deadlines import deadlines, write_due_dates
from autograder.server.db import Base, Person, Submission, database_url, now, open_database
from autograder.server.tokens import check_name

TIMESTAMP = "timestamp.txt"  # nbgrader's name for the time of a hand-in
LATE = "_late"  # collected.json's key for the late submissions (no student name starts with "_")


class Handin(Base):
    """What the last `collect --from-server` did with a submission: handed in, or late."""

    __tablename__ = "handins"

    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id"), primary_key=True)
    chapter: Mapped[str] = mapped_column(String(100))
    late: Mapped[bool] = mapped_column(Boolean)  # made after the chapter's deadline
    handed_in: Mapped[bool] = mapped_column(Boolean)  # the one collected for its student
    deadline: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)  # UTC
    collected_at: Mapped[dt.datetime] = mapped_column(DateTime, default=now)


@dataclass
class FromServer:
    """What one collect from the server did: `collect`'s result, and the late submissions left out."""

    collected: Collected
    late: list[tuple[str, str, int]] = field(default_factory=list)  # (student, chapter, id)


def released_chapters(root: Path) -> list[str]:
    """The chapters released in the course (COURSE/release/<chapter>/<chapter>.ipynb)."""
    return sorted(
        path.parent.name
        for path in (root / "release").glob("*/*.ipynb")
        if path.stem == path.parent.name
    )


def nbgrader_time(moment: dt.datetime) -> str:
    """A naive UTC time as nbgrader writes a hand-in's timestamp.txt."""
    return f"{moment:%Y-%m-%d %H:%M:%S.%f} UTC"


def collect_from_server(root: Path, url: str | None = None) -> FromServer:
    """Collect each student's latest on-time submission of every released chapter from the server's database."""
    names = released_chapters(root)
    due = deadlines(root)
    write_due_dates(root, names)  # nbgrader agrees with what is on time, even if DEADLINES changed
    sessions = open_database(database_url(root, url))
    late, chosen, received, unsafe = [], {}, {}, []
    with (
        sessions() as session,
        tempfile.TemporaryDirectory(prefix="proof-lm-from-server-") as scratch,
    ):
        for chapter in names:
            deadline = due[chapter].replace(tzinfo=None) if chapter in due else None
            rows = session.execute(
                select(Submission.id, Person.name, Submission.submitted_at)
                .join(Person, Submission.person_id == Person.id)
                .where(Submission.chapter == chapter, Person.instructor.is_(False))
                .order_by(Submission.submitted_at, Submission.id)
            ).all()
            session.execute(delete(Handin).where(Handin.chapter == chapter))
            for submission, student, at in rows:
                on_time = deadline is None or at <= deadline  # as nbgrader counts seconds late
                if on_time:
                    chosen[student, chapter] = submission  # rows come oldest first: the last wins
                else:
                    late.append((student, chapter, submission))
                received[submission] = (student, chapter, at, on_time, deadline)
        for (student, chapter), submission in list(chosen.items()):
            try:
                check_name(student)
            except ValueError as error:  # a name no `tokens` made: never joined into a path
                unsafe.append(Refusal(student, chapter, str(error)))
                del chosen[student, chapter]
                continue
            data = session.get(Submission, submission).notebook
            folder = Path(scratch) / student
            folder.mkdir(exist_ok=True)
            (folder / f"{chapter}.ipynb").write_bytes(data)
        collected = collect(root, Path(scratch), unsafe)
        handed_in = set(collected.notebooks)
        for (student, chapter), submission in chosen.items():
            if (student, chapter) in handed_in:
                at = received[submission][2]
                (root / "submitted" / student / chapter / TIMESTAMP).write_text(nbgrader_time(at))
        for submission, (student, chapter, _at, on_time, deadline) in received.items():
            session.add(
                Handin(
                    submission_id=submission,
                    chapter=chapter,
                    late=not on_time,
                    handed_in=chosen.get((student, chapter)) == submission
                    and (student, chapter) in handed_in,
                    deadline=deadline,
                )
            )
        session.commit()
    _note_late(root, late)
    return FromServer(collected, late)


def _note_late(root: Path, late: list[tuple[str, str, int]]) -> None:
    """Record the late submissions in COURSE/collected.json under "_late" (replaced at each collect)."""
    manifest_path = root / "collected.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    manifest[LATE] = [
        {"student": student, "chapter": chapter, "submission": submission}
        for student, chapter, submission in late
    ]
    manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True))
