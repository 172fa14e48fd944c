"""`make export` with a roster: the class's grades in the import formats of Canvas and Moodle.

A real nbgrader course (chapters 01 and 04 released) whose gradebook holds what autograde and the
formgrader write: exercise scores, a challenge's extra credit and written answers, graded by hand
for some students and not yet for others. The files are read back with the rules each LMS's
importer applies (Canvas: app/models/gradebook_importer.rb; Moodle: grade/import/csv/classes/
load_data.php; docs/export.md cites both), and every roster student must be in them.
"""

import csv
import re

import pytest
from conftest import released_course

from autograder.cli.instructor import main
from autograder.course.lms import read_roster
from autograder.judge.exercises import chapter_exercises

CHAPTERS = ("01_bigram_counting", "04_gradients")
WRITTEN = "written_batch_factor"  # chapter 04's written answer, 2 points
ROSTER = """student,name,canvas_id,sis_user_id,sis_login_id,section,email,username,idnumber
alice,"Liddell, Alice",101,S-1,alice@uni.example,Mon,alice@uni.example,alice,1001
bob,Bob Builder,102,S-2,bob@uni.example,Mon,bob@uni.example,bob,1002
carol,Carol,103,S-3,carol@uni.example,Tue,carol@uni.example,carol,1003
mallory,"=HYPERLINK(""http://evil.example"",""open"")",104,S-4,mallory@uni.example,"+cmd|' /C calc'!A0",mallory@uni.example,mallory,1004
zoe,Zoe,105,S-5,zoe@uni.example,Tue,zoe@uni.example,zoe,1005
"""
# What Canvas's importer reads as its own columns rather than assignments (gradebook_importer.rb).
CANVAS_RESERVED = re.compile(
    "Current Score|Current Points|Current Grade|Final Score|Final Points|Final Grade|"
    "Override Score|Override Grade|Override Status"
)
CANVAS_TITLE_AND_ID = re.compile(r"\A(.*)\s\((\d+)\)\Z")  # "Title (assignment id)"
FORMULA = ("=", "+", "-", "@", "\t", "\r")


def grade_class(root):
    """What autograde and the formgrader leave in the gradebook, written through nbgrader's API."""
    from nbgrader.api import Gradebook

    handed_in = {
        "alice": CHAPTERS,  # everything right, the challenge too; written answer graded 1.5
        "bob": ("01_bigram_counting",),  # chapter 04 never handed in
        "carol": CHAPTERS,  # written answer not graded yet
        "mallory": CHAPTERS,  # a name and section made to run in a spreadsheet
        "eve": ("01_bigram_counting",),  # handed in, in no roster
    }
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        for student, chapters in handed_in.items():
            gradebook.update_or_create_student(student)
            for chapter in chapters:
                gradebook.update_or_create_submission(chapter, student)
                for exercise in chapter_exercises(chapter):
                    grade = gradebook.find_grade(exercise.name, chapter, chapter, student)
                    earned = exercise.points if student in ("alice", "mallory") else 1.0
                    grade.auto_score = 0.0 if exercise.extra else earned
                    grade.extra_credit = earned if exercise.extra and student == "alice" else None
                    grade.needs_manual_grade = False
                if chapter == "04_gradients" and student != "carol":
                    grade = gradebook.find_grade(WRITTEN, chapter, chapter, student)
                    grade.manual_score = 1.5 if student == "alice" else 0.5
                    # mallory's: graded, then nbgrader asks for a review again (a re-grade does)
                    grade.needs_manual_grade = student == "mallory"
        gradebook.db.commit()


def maxima(chapter):
    return sum(e.points for e in chapter_exercises(chapter) if not e.extra)


def one_point_each(chapter):
    return float(sum(1 for e in chapter_exercises(chapter) if not e.extra))


def canvas_delimiter(lines):
    """Canvas's choice of delimiter: the one giving the same number of fields on the first 3 lines."""
    counts = {}
    for separator in ";,":
        sizes = {len(next(csv.reader([line], delimiter=separator))) for line in lines[:3]}
        counts[separator] = sizes.pop() if len(sizes) == 1 else 0
    return ";" if counts[";"] > counts[","] else ","


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lms")
    root = tmp / "course"
    released_course(root, *CHAPTERS)
    grade_class(root)
    (tmp / "roster.csv").write_text(ROSTER)
    return tmp, root


def test_canvas_and_moodle_files_follow_their_import_rules(exported, capsys):
    tmp, root = exported
    assert main(["export", "--root", str(root), "--to", str(tmp / "grades.csv"),
                 "--roster", str(tmp / "roster.csv")]) == 0  # fmt: skip
    printed = capsys.readouterr().out
    # named on the command line: never dropped in silence
    assert "NOT IN THE ROSTER (in grades.csv, in no LMS file): eve" in printed
    assert "NOTHING HANDED IN (empty grades): zoe" in printed
    assert "WRITTEN ANSWERS NOT GRADED YET in 04_gradients (empty): carol" in printed
    roster = {entry["student"]: entry for entry in read_roster(tmp / "roster.csv")}
    written, extra = "04_gradients written answers", "04_gradients extra credit"
    expected = {  # per student: (chapter 01, chapter 04, written, 04's extra credit)
        "alice": (maxima(CHAPTERS[0]), maxima(CHAPTERS[1]), 1.5, 3.0),
        "bob": (one_point_each(CHAPTERS[0]), None, None, None),  # 04 never handed in
        "carol": (one_point_each(CHAPTERS[0]), one_point_each(CHAPTERS[1]), None, 0.0),
        "mallory": (maxima(CHAPTERS[0]), maxima(CHAPTERS[1]), 0.5, 0.0),
        "zoe": (None, None, None, None),
    }
    headers = [*CHAPTERS, written, extra, "01_bigram_counting extra credit"]

    def value(cell):
        return None if cell == "" else float(cell)

    # Canvas: its importer's rules, one by one
    text = (tmp / "canvas.csv").read_text(encoding="utf-8")
    assert canvas_delimiter(text.splitlines()) == ","
    rows = list(csv.reader(text.splitlines()))
    header, points, students = rows[0], rows[1], rows[2:]
    assert header[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert "Student" in header[0] and "ID" in header[1] and len(header) > 3
    assert re.search(r"SIS\s+User\s+ID", header[2]) and re.search(r"SIS\s+Login\s+ID", header[3])
    assert "Section" in header[4]  # the last student column, before the assignments
    assignments = header[5:]
    assert sorted(assignments) == sorted(headers) and len(set(assignments)) == len(assignments)
    for title in assignments:  # each is read as an assignment, matched or created by its title
        assert not CANVAS_RESERVED.search(title) and not CANVAS_TITLE_AND_ID.match(title), title
    assert "Points Possible" in points[0]
    possible = dict(zip(assignments, map(float, points[5:]), strict=True))
    assert possible == {
        CHAPTERS[0]: maxima(CHAPTERS[0]),
        CHAPTERS[1]: maxima(CHAPTERS[1]),
        written: 2.0,
        extra: 0.0,  # extra credit: an assignment worth 0 points
        "01_bigram_counting extra credit": 0.0,
    }
    by_id = {}
    for row in students:
        assert len(row) == len(header) and "Points Possible" not in row[0]
        assert row[1].isdigit() and row[2] and row[3]  # Canvas finds its student by these
        by_id[row[1]] = row
    assert sorted(by_id) == sorted(entry["canvas_id"] for entry in roster.values())
    for student, numbers in expected.items():
        row = dict(zip(header, by_id[roster[student]["canvas_id"]], strict=True))
        assert (row["SIS User ID"], row["SIS Login ID"]) == (
            roster[student]["sis_user_id"],
            roster[student]["sis_login_id"],
        )
        assert tuple(value(row[h]) for h in (*CHAPTERS, written, extra)) == numbers, student
    assert by_id["101"][0] == "Liddell, Alice"

    # Moodle: one header line, one line per student, identities filled, grades numbers or empty
    with (tmp / "moodle.csv").open(newline="", encoding="utf-8") as handle:
        lines = list(csv.reader(handle))
    header, students = lines[0], lines[1:]
    identities = ["Email address", "Username", "ID number"]
    assert header[:4] == ["Name", *identities] and sorted(header[4:]) == sorted(headers)
    assert len(set(header)) == len(header) and all(h.strip() == h and h for h in header)
    assert len(students) == len(roster)  # no points line: Moodle would read it as a student
    for column in identities:  # whichever the instructor maps from, every line is placed
        cells = [row[header.index(column)] for row in students]
        assert all(cells) and len(set(cells)) == len(cells)
    by_email = {row[1]: dict(zip(header, row, strict=True)) for row in students}
    assert sorted(by_email) == sorted(entry["email"] for entry in roster.values())
    for student, numbers in expected.items():
        row = by_email[roster[student]["email"]]
        assert (row["Username"], row["ID number"]) == (
            roster[student]["username"],
            roster[student]["idnumber"],
        )
        assert tuple(value(row[h]) for h in (*CHAPTERS, written, extra)) == numbers, student

    # a spreadsheet opening either file shows the student's text, never runs it
    for name in ("canvas.csv", "moodle.csv"):
        with (tmp / name).open(newline="", encoding="utf-8") as handle:
            cells = [cell for row in csv.reader(handle) for cell in row]
        assert not [cell for cell in cells if cell.startswith(FORMULA)], name
        assert '\'=HYPERLINK("http://evil.example","open")' in cells, name
    assert "'+cmd|' /C calc'!A0" in [row[4] for row in rows]


def test_export_without_roster_writes_grades_csv_alone(exported, capsys):
    tmp, root = exported
    folder = tmp / "plain"
    folder.mkdir()
    assert main(["export", "--root", str(root), "--to", str(folder / "grades.csv")]) == 0
    assert "no roster" in capsys.readouterr().out
    assert sorted(p.name for p in folder.iterdir()) == ["grades.csv"]


@pytest.mark.parametrize(
    ("roster", "expected"),
    [
        ("", "empty; expected a header"),
        ("name,email\nAda,ada@x\n", "expected distinct columns"),
        ("student,e-mail\nada,ada@x\n", "expected distinct columns"),
        ("student,name\nada,Ada\n", "no LMS identity"),
        ("student,email\nada,\n", "email is empty; expected it on every line"),
        ("student,email\nada,a@x\nbob,a@x\n", "is also on line 2"),
        ("student,email\nada,a@x\nada,b@x\n", "is also on line 2"),
        ("student,canvas_id\nada,12a\n", "expected Canvas's user id, a number"),
        ("student,email\nada,=cmd()@x\n", "a spreadsheet reads that as a formula"),
        ("student,sis_login_id\nada,@SUM(A1)\n", "a spreadsheet reads that as a formula"),
        ("student,email\nada,a\x1b[2J@x\n", "expected visible text"),
        ("student,email\nada,a@x,extra\n", "3 cells, expected 2"),
        ("student,name,email\nada,Points Possible,a@x\n", "read by Canvas as its points row"),
    ],
)
def test_a_bad_roster_is_refused_saying_what_is_expected(tmp_path, roster, expected):
    path = tmp_path / "roster.csv"
    path.write_text(roster)
    with pytest.raises(ValueError, match=re.escape(expected)):
        read_roster(path)


def test_a_bad_roster_stops_export_with_its_reason(exported, capsys):
    tmp, root = exported
    (tmp / "bad.csv").write_text("student,email\nada,=1+1\n")
    assert main(["export", "--root", str(root), "--to", str(tmp / "grades.csv"),
                 "--roster", str(tmp / "bad.csv")]) == 2  # fmt: skip
    assert "a spreadsheet reads that as a formula" in capsys.readouterr().err


def test_the_feedback_page_and_the_export_count_written_answers_by_one_rule(exported):
    # the score every page shows and the LMS's written-answer column: graded (alice 1.5), graded
    # then asked for a review again (mallory 0.5, counted until changed), not graded yet (carol)
    from nbgrader.api import Gradebook

    from autograder.course.lms import _written
    from autograder.course.scores import chapter_score

    _, root = exported
    chapter = "04_gradients"
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        for student, expected in (("alice", 1.5), ("mallory", 0.5), ("carol", None)):
            (answer,) = chapter_score(gradebook, chapter, student).written
            grade = gradebook.find_grade(WRITTEN, chapter, chapter, student)
            assert answer.given == _written({WRITTEN: grade}, {WRITTEN: 2.0}) == expected
