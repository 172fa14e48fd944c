"""DEADLINES in a course's nbgrader_config.py: set before or after a release, never rewritten,
written as nbgrader's due dates, checked."""

import datetime as dt
from pathlib import Path

import pytest

from autograder.course.deadlines import deadlines, parse_deadline
from autograder.course.release import init_course, release

CHAPTER = "01_bigram_counting"


def due_date(root: Path, chapter: str) -> dt.datetime | None:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        return gradebook.find_assignment(chapter).duedate


@pytest.mark.slow
def test_deadlines_set_before_the_first_release_are_kept_as_written(tmp_path):
    root = init_course(tmp_path / "course")  # make course
    assert deadlines(root) == {} and (root / "exchange").is_dir()
    config = root / "nbgrader_config.py"
    block = f'DEADLINES = {{\n    "{CHAPTER}": "2026-12-08T23:59:00+01:00",  # Tuesday\n}}\n'
    written = config.read_text().replace("DEADLINES = {}\n", block)
    assert block in written
    config.write_text(written)
    release(root, [CHAPTER])
    assert config.read_text() == written, "release rewrote the instructor's file"
    assert deadlines(root) == {CHAPTER: dt.datetime(2026, 12, 8, 22, 59, tzinfo=dt.UTC)}
    assert due_date(root, CHAPTER) == dt.datetime(2026, 12, 8, 22, 59)  # nbgrader keeps UTC
    config.write_text(written.replace(block, "DEADLINES = {}\n"))
    release(root, [CHAPTER])
    assert due_date(root, CHAPTER) is None, "a deadline taken out is nbgrader's no more"


def test_the_course_configuration_names_no_path_so_a_moved_course_keeps_its_root(tmp_path):
    from traitlets.config.loader import PyFileConfigLoader

    init_course(tmp_path / "course")
    (tmp_path / "course").rename(tmp_path / "moved")
    config = PyFileConfigLoader("nbgrader_config.py", path=str(tmp_path / "moved")).load_config()
    assert config.CourseDirectory.root == str(tmp_path / "moved")
    assert config.Exchange.root == str(tmp_path / "moved" / "exchange")
    assert config.CourseDirectory.course_id == "proof-lm", "the shared configuration is loaded"


def test_a_configuration_that_does_not_load_the_shared_one_is_named(tmp_path):
    root = tmp_path / "course"
    root.mkdir()
    (root / "nbgrader_config.py").write_text(f'DEADLINES = {{"{CHAPTER}": "2026-12-08T23:59Z"}}\n')
    with pytest.raises(ValueError, match="does not load proof-lm's configuration"):
        init_course(root)


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
