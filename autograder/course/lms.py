"""The class's grades in the import formats of Canvas and Moodle, from the gradebook and a roster.

The roster (CSV, one line per student; `read_roster`) ties each student id of the course to the
student's identity in the LMS. Every student of the roster gets a row in both files, whether they
handed anything in or not; a student of the gradebook the roster does not name is left out of
them and named in the `Lms` result (grades.csv keeps everyone). The columns and the rules they
follow are in docs/export.md, with the LMS documentation they come from.
"""

import csv
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from autograder.course.printable import FORMULA_STARTS, printable, spreadsheet_cell
from autograder.course.scores import exercise_points, written_given
from autograder.judge.exercises import Exercise, chapter_exercises

# What the roster may hold: `student` and at least one identity in an LMS.
CANVAS_IDS = {"canvas_id": "ID", "sis_user_id": "SIS User ID", "sis_login_id": "SIS Login ID"}
MOODLE_IDS = {"email": "Email address", "username": "Username", "idnumber": "ID number"}
ROSTER_COLUMNS = ("student", "name", *CANVAS_IDS, "section", *MOODLE_IDS)
# A cell starting with one of these is a formula (or its start) to a spreadsheet (OWASP's list).
# Canvas reads a line whose first cell holds this as its points row, not as a student.
CANVAS_POINTS_ROW = "Points Possible"
# The student columns Canvas's gradebook import reads, in the order it reads them.
CANVAS_STUDENT_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")


@dataclass(frozen=True)
class Column:
    """One grade column of the LMS files: its header and the points it is out of."""

    header: str
    maximum: float


@dataclass
class Lms:
    """What `export_lms` wrote, and whom it could not place."""

    files: list[Path]
    not_in_roster: list[str]  # in the gradebook, not in the roster: in no LMS file
    nothing_handed_in: list[str]  # in the roster, not in the gradebook: empty grades
    written_ungraded: dict[str, list[str]] = field(default_factory=dict)  # chapter: students


def read_roster(path: Path) -> list[dict[str, str]]:
    """The roster's lines, each a dict of ROSTER_COLUMNS (absent ones empty); ValueError on bad input.

    A CSV file whose header names `student` (the course's student id) and at least one LMS identity
    (canvas_id, sis_user_id, sis_login_id for Canvas; email, username, idnumber for Moodle), with
    `name` and `section` optional. Every identity column is filled on every line (the LMS skips or
    misplaces a line without one), no student or identity appears twice, `canvas_id` is Canvas's
    number, and no identity starts like a spreadsheet formula (it could not be neutralised without
    changing what the LMS matches).
    """
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            lines = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise ValueError(f"roster {path}: cannot be read as UTF-8 CSV ({error})") from error
    if not lines:
        raise ValueError(f"roster {path}: empty; expected a header line naming its columns")
    header = [name.strip().lower() for name in lines[0]]
    unknown = [name for name in header if name not in ROSTER_COLUMNS]
    if unknown or "student" not in header or len(set(header)) != len(header):
        raise ValueError(
            f"roster {path}: header {lines[0]!r}; expected distinct columns among "
            f"{', '.join(ROSTER_COLUMNS)}, with student"
        )
    identities = [name for name in header if name in CANVAS_IDS or name in MOODLE_IDS]
    if not identities:
        raise ValueError(
            f"roster {path}: no LMS identity; expected one of {', '.join([*CANVAS_IDS, *MOODLE_IDS])}"
        )
    roster, seen = [], {}
    for number, cells in enumerate(lines[1:], start=2):
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) != len(header):
            raise ValueError(
                f"roster {path} line {number}: {len(cells)} cells, expected {len(header)}"
            )
        entry = dict.fromkeys(ROSTER_COLUMNS, "") | {
            name: cell.strip() for name, cell in zip(header, cells, strict=True)
        }
        for name in ("student", *identities):
            _check_identity(entry[name], name, f"roster {path} line {number}")
            if (name, entry[name]) in seen:
                raise ValueError(
                    f"roster {path} line {number}: {name} {entry[name]!r} is also on line "
                    f"{seen[name, entry[name]]}; expected each once"
                )
            seen[name, entry[name]] = number
        if entry["canvas_id"] and not entry["canvas_id"].isdigit():
            raise ValueError(
                f"roster {path} line {number}: canvas_id {entry['canvas_id']!r}; expected "
                "Canvas's user id, a number"
            )
        if CANVAS_POINTS_ROW in entry["name"]:
            raise ValueError(
                f"roster {path} line {number}: a name holding {CANVAS_POINTS_ROW!r} is read by "
                "Canvas as its points row; expected another"
            )
        roster.append(entry)
    return roster


def _check_identity(value: str, name: str, where: str) -> None:
    """ValueError unless `value` is a filled, printable identity that no spreadsheet reads as a formula."""
    if not value:
        raise ValueError(f"{where}: {name} is empty; expected it on every line")
    if printable(value) != value or value.startswith(FORMULA_STARTS):
        raise ValueError(
            f"{where}: {name} {value!r}; expected visible text not starting with "
            f"{' '.join(repr(c) for c in FORMULA_STARTS)} (a spreadsheet reads that as a formula)"
        )


def _number(value: float | None) -> str:
    """A grade as Canvas and Moodle read it (a dot for decimals); None is an empty cell."""
    return "" if value is None else f"{value:.10g}"


def gradebook_grades(
    root: Path, chapters: list[str]
) -> tuple[list[Column], dict[str, dict[str, float | None]], dict[str, list[str]]]:
    """Every grade column, each gradebook student's value per column, and the ungraded written answers.

    Per chapter: its exercises' points (challenges aside, as in grades.csv); the points of its
    written answers (nbgrader's manual-grade cells, grade and solution at once) once the instructor
    graded every one of them, else empty; and its challenges' extra credit. A chapter the student
    did not hand in is empty in each of its columns.
    """
    from nbgrader.api import Gradebook, MissingEntry

    columns, values, ungraded = [], {}, {}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        students = sorted(s.id for s in gradebook.students)
        values = {student: {} for student in students}
        for chapter in chapters:
            exercises = chapter_exercises(chapter)
            notebook = gradebook.find_notebook(chapter, chapter)
            solutions = {cell.name for cell in notebook.solution_cells}
            written = {c.name: c.max_score for c in notebook.grade_cells if c.name in solutions}
            regular = [e for e in exercises if not e.extra]
            extra = [e for e in exercises if e.extra]
            chapter_columns = [Column(chapter, sum(e.points for e in regular))]
            if written:
                chapter_columns.append(Column(f"{chapter} written answers", sum(written.values())))
            if extra:
                chapter_columns.append(Column(f"{chapter} extra credit", 0.0))
            columns += chapter_columns
            for student in students:
                try:
                    submitted = gradebook.find_submission_notebook(chapter, chapter, student)
                except MissingEntry:
                    found = [None] * len(chapter_columns)
                else:
                    grades = {grade.name: grade for grade in submitted.grades}
                    found = _chapter_values(grades, regular, written, extra)
                    if written and found[1] is None:
                        ungraded.setdefault(chapter, []).append(student)
                headers = (column.header for column in chapter_columns)
                values[student] |= dict(zip(headers, found, strict=True))
    return columns, values, ungraded


def _chapter_values(
    grades: dict[str, object],
    regular: list[Exercise],
    written: dict[str, float],
    extra: list[Exercise],
) -> list[float | None]:
    """A submission's values in its chapter's columns: points, written answers, extra credit."""
    found = [sum(exercise_points(grades.get(e.name), e) for e in regular)]
    if written:
        found.append(_written(grades, written))
    if extra:
        found.append(sum(exercise_points(grades.get(e.name), e) for e in extra))
    return found


def _written(grades: dict[str, object], written: dict[str, float]) -> float | None:
    """The points of a submission's written answers, or None while one still awaits its grade."""
    given = [written_given(grades.get(name)) for name in written]
    return None if None in given else float(sum(given))


def _write_grades(
    to: Path,
    identity: dict[str, Callable[[dict[str, str]], str]],
    points_row: str | None,
    roster: list[dict[str, str]],
    columns: list[Column],
    values: dict[str, dict[str, float | None]],
) -> Path:
    """A gradebook CSV: the `identity` columns then one per grade column, an optional line of
    maxima headed `points_row`, one line per roster student (in roster order)."""
    with to.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow([*identity, *(c.header for c in columns)])
        if points_row is not None:
            blanks = [""] * (len(identity) - 1)
            writer.writerow([points_row, *blanks, *(_number(c.maximum) for c in columns)])
        for entry in roster:
            grades = values.get(entry["student"], {})
            writer.writerow(
                [
                    *(cell(entry) for cell in identity.values()),
                    *(_number(grades.get(c.header)) for c in columns),
                ]
            )
    return to


def _name(entry: dict[str, str]) -> str:
    """The student's name as a spreadsheet shows it (never a formula), their id without one."""
    return spreadsheet_cell(entry["name"] or entry["student"])


def write_canvas(
    to: Path,
    roster: list[dict[str, str]],
    columns: list[Column],
    values: dict[str, dict[str, float | None]],
) -> Path:
    """Canvas's gradebook CSV: its five student columns, a Points Possible line, one line per student.

    Canvas matches a line to its student by `ID`, else `SIS User ID`, else `SIS Login ID` (the
    roster fills at least one), and an assignment column by its title (a new title makes a new
    assignment worth its Points Possible).
    """
    name, canvas_id, sis_user, sis_login, section = CANVAS_STUDENT_COLUMNS
    identity = {
        name: _name,
        canvas_id: lambda entry: entry["canvas_id"],
        sis_user: lambda entry: entry["sis_user_id"],
        sis_login: lambda entry: entry["sis_login_id"],
        section: lambda entry: spreadsheet_cell(entry["section"]),
    }
    return _write_grades(to, identity, CANVAS_POINTS_ROW, roster, columns, values)


def write_moodle(
    to: Path,
    roster: list[dict[str, str]],
    columns: list[Column],
    values: dict[str, dict[str, float | None]],
) -> Path:
    """Moodle's grade import CSV: the student's name, the roster's Moodle identities, one column per grade item.

    At import the instructor maps one identity column ("Map from") to the same Moodle user field
    ("Map to") and each grade column to a grade item; Moodle has no points line (an item's maximum
    is set on the item).
    """
    identity: dict[str, Callable[[dict[str, str]], str]] = {"Name": _name}
    for field_name in MOODLE_IDS:
        if any(entry[field_name] for entry in roster):
            identity[MOODLE_IDS[field_name]] = lambda entry, key=field_name: entry[key]
    return _write_grades(to, identity, None, roster, columns, values)


def export_lms(root: Path, roster_path: Path, folder: Path, chapters: list[str]) -> Lms:
    """Write canvas.csv (when the roster has a Canvas identity) and moodle.csv (a Moodle one) into `folder`."""
    roster = read_roster(roster_path)
    columns, values, ungraded = gradebook_grades(root, chapters)
    files = []
    if any(entry[name] for entry in roster for name in CANVAS_IDS):
        files.append(write_canvas(folder / "canvas.csv", roster, columns, values))
    if any(entry[name] for entry in roster for name in MOODLE_IDS):
        files.append(write_moodle(folder / "moodle.csv", roster, columns, values))
    named = {entry["student"] for entry in roster}
    return Lms(
        files=files,
        not_in_roster=[printable(student) for student in values if student not in named],
        nothing_handed_in=[entry["student"] for entry in roster if entry["student"] not in values],
        written_ungraded={
            chapter: [printable(s) for s in students if s in named]
            for chapter, students in ungraded.items()
        },
    )
