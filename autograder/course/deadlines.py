"""Each chapter's deadline: `DEADLINES` in the course's nbgrader_config.py, and nbgrader's due dates.

    DEADLINES = {"01_bigram_counting": "2026-12-08T23:59:00+01:00"}   # in COURSE/nbgrader_config.py

A deadline is an ISO 8601 time with its zone (`Z` for UTC); a chapter left out has none. The file
is written once (`make course`, or the first `release`) and never again, so the deadlines may be
set before the first release and stay as the instructor wrote them. `release` writes each deadline
into the gradebook as nbgrader's own due date of the assignment (so nbgrader's late machinery, the
formgrader and export agree);
`collect --from-server` hands in each student's latest submission made before it. The file is
read as text (the dict must be a literal), never run.
"""

import ast
import datetime as dt
from pathlib import Path

from autograder.course.directory import chapters, db_url

EXAMPLE = '"2026-12-08T23:59:00+01:00"'


def parse_deadline(chapter: str, value: object) -> dt.datetime:
    """`value` as an aware datetime in UTC; ValueError saying what is expected."""
    try:
        moment = dt.datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise ValueError(
            f"DEADLINES[{chapter!r}] = {value!r}: expected an ISO 8601 time with its zone, "
            f"for example {EXAMPLE} (or Z for UTC)"
        )
    return moment.astimezone(dt.UTC)


def _literal(config: Path) -> object:
    """The value assigned to DEADLINES at the top of `config` (a literal), or None."""
    if not config.is_file():
        return None
    found = None
    for node in ast.parse(config.read_text(), filename=str(config)).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "DEADLINES" for target in node.targets
        ):
            try:
                found = ast.literal_eval(node.value)
            except ValueError:
                raise ValueError(
                    f"DEADLINES in {config} must be a literal dict of chapter: time strings"
                ) from None
    return found


def deadlines(root: Path) -> dict[str, dt.datetime]:
    """The course's deadlines by chapter, in UTC (chapters without one are left out)."""
    config = root / "nbgrader_config.py"
    value = _literal(config)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"DEADLINES in {config}: expected a dict of chapter: time strings")
    known = set(chapters())
    unknown = sorted(str(chapter) for chapter in value if chapter not in known)
    if unknown:
        raise ValueError(f"DEADLINES in {config} names no chapter of the course: {unknown}")
    return {chapter: parse_deadline(chapter, when) for chapter, when in value.items()}


EMPTY_DEADLINES = (
    "# Each chapter's deadline, an ISO 8601 time with its zone, for example\n"
    f'#     DEADLINES = {{"01_bigram_counting": {EXAMPLE}}}\n'
    "# read by release (nbgrader's due dates), collect --from-server (what counts as on time) and\n"
    "# make student-kit (which answers the kit's library may carry). Edit it at any time.\n"
    "DEADLINES = {}\n"
)


def write_due_dates(root: Path, names: list[str]) -> dict[str, dt.datetime]:
    """Write the deadlines of the chapters `names` (those that have one) as nbgrader's due dates."""
    from nbgrader.api import Gradebook

    due = {chapter: when for chapter, when in deadlines(root).items() if chapter in names}
    with Gradebook(db_url(root)) as gradebook:
        for chapter in names:
            # a chapter whose deadline was removed has none in nbgrader either
            naive = due[chapter].replace(tzinfo=None) if chapter in due else None
            gradebook.update_or_create_assignment(chapter, duedate=naive)
    return due
