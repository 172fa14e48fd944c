"""The class report from the server's database: the instructor's view, live, from the submissions so far.

Every graded submission keeps the trusted reports as data (`Submission.reports`); the report
counts each student's latest graded submission per chapter, and beside it what their first one
showed (`course.report.stats.first_and_last`). The page is the one `make report` writes
(`course.report.page.render`), without the similarity pass (that needs every notebook parsed:
`make report` does it).
"""

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session, joinedload, load_only

from autograder.course.report.page import render
from autograder.course.report.stats import Kept, Row, diagnosis_rows, first_and_last, kept_from_data
from autograder.server.db import Submission


def graded_kept(session: Session) -> list[tuple[int, Kept]]:
    """(id, kept reports) of each student's first and latest graded submission per chapter that
    kept its reports, oldest first: only those are read, so the report costs the same however many
    times a student hands in (all of them were read: 3,000 of one student's took 6 s a view)."""
    kept = (Submission.status == "graded", Submission.reports.is_not(None))
    ends = (
        select(func.min(Submission.id).label("first"), func.max(Submission.id).label("last"))
        .where(*kept)
        .group_by(Submission.person_id, Submission.chapter)
        .subquery()
    )
    rows = session.scalars(
        select(Submission)
        .join(ends, or_(Submission.id == ends.c.first, Submission.id == ends.c.last))
        .options(
            load_only(Submission.id, Submission.chapter, Submission.reports, Submission.flags),
            joinedload(Submission.person),
        )
        .order_by(Submission.id)
    )
    return [
        (
            row.id,
            kept_from_data(
                {
                    "student": row.person.name,
                    "chapter": row.chapter,
                    "reports": row.reports,
                    "flags": list(row.flags or []),
                }
            ),
        )
        for row in rows
    ]


def live_rows(session: Session) -> list[Row]:
    """The diagnoses of the latest graded submissions, with how the first ones compared."""
    first, last = first_and_last(graded_kept(session))
    return diagnosis_rows(last, first, last)


def live_page(session: Session) -> str:
    """The report page of the latest graded submissions (no similarity pass)."""
    first, last = first_and_last(graded_kept(session))
    return render(last, [], "Class report (live, from the server)", first, last, compared=False)
