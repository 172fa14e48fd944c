"""DEADLINES in a course's nbgrader_config.py: kept by release, written as nbgrader's due dates, checked."""

import datetime as dt
from pathlib import Path

import pytest

from autograder.course.deadlines import deadlines, parse_deadline
from autograder.course.release import init_course, release

CHAPTER = "01_bigram_counting"


def set_deadlines(root: Path, text: str) -> None:
    """Replace the DEADLINES line of the course's nbgrader_config.py, as an instructor edits it."""
    config = root / "nbgrader_config.py"
    lines = config.read_text().splitlines()
    assert sum(line.startswith("DEADLINES = ") for line in lines) == 1, lines
    config.write_text(
        "".join(f"{text if line.startswith('DEADLINES = ') else line}\n" for line in lines)
    )


def due_date(root: Path, chapter: str) -> dt.datetime | None:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        return gradebook.find_assignment(chapter).duedate


@pytest.mark.slow
def test_release_keeps_the_deadlines_and_writes_them_as_nbgraders_due_dates(tmp_path):
    root = init_course(tmp_path / "course")
    assert deadlines(root) == {}
    set_deadlines(root, f'DEADLINES = {{"{CHAPTER}": "2026-12-08T23:59:00+01:00"}}')
    release(root, [CHAPTER])
    assert f'"{CHAPTER}"' in (root / "nbgrader_config.py").read_text().replace("'", '"')
    assert deadlines(root) == {CHAPTER: dt.datetime(2026, 12, 8, 22, 59, tzinfo=dt.UTC)}
    assert due_date(root, CHAPTER) == dt.datetime(2026, 12, 8, 22, 59)  # nbgrader keeps UTC
    set_deadlines(root, "DEADLINES = {}")
    release(root, [CHAPTER])
    assert due_date(root, CHAPTER) is None, "a deadline taken out is nbgrader's no more"


@pytest.mark.parametrize(
    "value", ["2026-12-08 23:59", "next friday", 20261208, "2026-13-01T00:00Z"]
)
def test_a_deadline_without_a_zone_or_not_a_time_is_refused(value):
    with pytest.raises(ValueError, match="expected an ISO 8601 time with its zone"):
        parse_deadline(CHAPTER, value)


def test_a_deadline_in_utc_or_another_zone(tmp_path):
    assert parse_deadline(CHAPTER, "2026-12-08T23:59Z") == dt.datetime(
        2026, 12, 8, 23, 59, tzinfo=dt.UTC
    )
    assert parse_deadline(CHAPTER, "2026-12-08T18:59-05:00").hour == 23


def test_deadlines_of_no_chapter_or_not_a_literal_are_named(tmp_path):
    root = tmp_path / "course"
    root.mkdir()
    (root / "nbgrader_config.py").write_text('DEADLINES = {"99_nothing": "2026-12-08T23:59Z"}\n')
    with pytest.raises(ValueError, match="names no chapter of the course: \\['99_nothing'\\]"):
        deadlines(root)
    (root / "nbgrader_config.py").write_text("DEADLINES = dict(a=open('/etc/passwd').read())\n")
    with pytest.raises(ValueError, match="must be a literal dict"):
        deadlines(root)
    with pytest.raises(ValueError, match="must be a literal dict"):
        init_course(root)  # named before the file is written again
