"""Attacks on the class report's similarity pass (`autograder/course/report/similarity.py`).

No grading: the similarity pass reads the collected notebooks' solution cells only, so the
attacking hand-ins are built from the released chapter directly and compared as `make report`
compares them.
"""

import copy
import json

import nbformat
from conftest import REPO

from autograder.course.report import course_pairs
from autograder.course.report.page import pairs_section
from autograder.course.report.similarity import (
    CHAPTER,
    MAX_CHARS,
    chapter_pairs,
    shares,
    solution_cells,
)
from autograder.judge.exercises import chapter_exercises

NAME = "01_bigram_counting"


def handed_in(released: dict, code: dict[str, str]) -> dict:
    """The released notebook with each exercise's solution cell holding `code[exercise]`."""
    notebook = copy.deepcopy(released)
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if grade_id.removesuffix("_code") in code and grade_id.endswith("_code"):
            cell.source = code[grade_id.removesuffix("_code")]
    return notebook


def test_a_padded_cell_hides_no_copy_in_the_other_cells():
    """A copier who puts a 20,000-character comment in the first solution cell (comments are
    normalised away, but they counted against the chapter's cap, which then cut every later cell
    from the comparison: a verbatim copy of the chapter was listed nowhere) is still listed for
    every other exercise, and the page names the cell compared only in part."""
    released = nbformat.read(REPO / "chapters" / f"{NAME}.ipynb", as_version=4)
    names = [exercise.name for exercise in chapter_exercises(NAME)]
    code = {
        name: f"def {name}_own(x):\n"
        + "".join(f"    t{i} = (x[{i}] * {i + k}) ** 2 - max(x[{i}], {k})\n" for i in range(25))
        + "    return t0\n"
        for k, name in enumerate(names)
    }
    padded = {**code, names[0]: "# " + "x" * MAX_CHARS + "\n" + code[names[0]]}
    cells = {
        student: solution_cells(handed_in(released, theirs), names)
        for student, theirs in [("honest", code), ("copier", padded)]
    }
    parts = chapter_pairs(NAME, released, cells, names)
    listed = {part.part for part in parts if part.pairs}
    assert set(names[1:]) <= listed, listed
    (cut,) = [part for part in parts if part.cut]
    assert (cut.part, cut.cut) == (names[0], [("copier", len(padded[names[0]]))])
    assert "compared only in part" in pairs_section(parts, True)
    assert all(part.part != CHAPTER or not part.cut for part in parts)


def test_the_cap_is_shared_fairly_and_never_exceeded():
    """Each cell keeps what it has up to an equal share; what short cells leave goes to longer ones."""
    assert shares({"a": 100, "b": 10**9, "c": 300}) == {"a": 100, "b": MAX_CHARS - 400, "c": 300}
    assert shares({"a": 10**9, "b": 10**9}) == {"a": MAX_CHARS // 2, "b": MAX_CHARS // 2}
    assert sum(shares({str(i): 10**6 for i in range(7)}).values()) <= MAX_CHARS


def test_half_a_character_stops_no_report(tmp_path):
    """A copier whose notebook spells a lone surrogate (`"\\ud800"`: JSON can, Jupyter never
    writes one) made `make report` fail writing the page (UnicodeEncodeError on their code shown
    beside the copied one): the notebook is not one the grader reads, and the report is written,
    with a character JSON spells as a surrogate pair (an emoji) still shown."""
    released = nbformat.read(REPO / "chapters" / f"{NAME}.ipynb", as_version=4)
    names = [exercise.name for exercise in chapter_exercises(NAME)]
    code = {
        name: f"def {name}_own(x):\n"
        + "".join(f"    t{i} = (x[{i}] * {i + k}) ** 2 - max(x[{i}], {k})\n" for i in range(25))
        + "    return t0\n"
        for k, name in enumerate(names)
    }
    release = tmp_path / "release" / NAME
    release.mkdir(parents=True)
    nbformat.write(released, release / f"{NAME}.ipynb")
    for student, mark in [("honest", "\U0001f600"), ("copier", "\ud800"), ("friend", "")]:
        folder = tmp_path / "submitted" / student / NAME
        folder.mkdir(parents=True)
        marked = {**code, names[0]: code[names[0]] + f"s = '{mark}'\n"}
        # json.dumps spells the emoji as a surrogate pair and the lone one as \ud800
        (folder / f"{NAME}.ipynb").write_text(json.dumps(handed_in(released, marked)))
    parts = course_pairs(tmp_path, [NAME])
    assert {p.first for part in parts for p in part.pairs} | {
        p.second for part in parts for p in part.pairs
    } == {"friend", "honest"}
    page = tmp_path / "report.html"
    page.write_text(pairs_section(parts, True), encoding="utf-8")
    assert "\U0001f600" in page.read_text(encoding="utf-8")


def test_the_report_keeps_a_bounded_part_of_each_notebook(tmp_path):
    """A class whose notebooks are each large (a 3 MB output here; 64 MB ones keep some 600 MB
    each as Python objects) is compared one notebook in memory at a time: the report kept every
    notebook whole until the chapter was compared."""
    import tracemalloc

    released = nbformat.read(REPO / "chapters" / f"{NAME}.ipynb", as_version=4)
    release = tmp_path / "release" / NAME
    release.mkdir(parents=True)
    nbformat.write(released, release / f"{NAME}.ipynb")
    big = handed_in(released, {})
    next(c for c in big.cells if c.cell_type == "code").outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="x" * 3_000_000)
    ]
    for number in range(6):
        folder = tmp_path / "submitted" / f"s{number}" / NAME
        folder.mkdir(parents=True)
        nbformat.write(big, folder / f"{NAME}.ipynb")
    course_pairs(tmp_path, [NAME])  # what is loaded once (modules, caches) is not counted
    tracemalloc.start()
    try:
        course_pairs(tmp_path, [NAME])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # measured: 12 MB (one notebook parsed at a time), 28 MB when every notebook was held whole
    assert peak < 18e6, f"peak {peak / 1e6:.0f} MB for 6 notebooks of 3 MB"


def test_the_live_report_reads_two_submissions_a_student_and_chapter(tmp_path):
    """A student handing in as often as the hourly limit allows made every view of the server's
    live report read every one of their graded submissions (3,000 took 6 s more a view): it reads
    each student's first and latest per chapter, and counts what reading them all would."""
    from autograder.course.report.stats import diagnosis_rows, first_and_last, kept_from_data
    from autograder.server.class_report import graded_kept, live_rows
    from autograder.server.db import Person, Submission, open_database

    def reports(earned: int) -> list[dict]:
        return [
            {
                "exercise": exercise.name,
                "points": exercise.points,
                "earned": earned,
                "extra": exercise.extra,
                "passed": bool(earned),
                "seed": 1,
                "notes": [],
                "flags": [],
                "checks": [{"name": "a check", "passed": bool(earned), "hint": f"hint {earned}"}],
            }
            for exercise in chapter_exercises(NAME)
        ]

    sessions = open_database(f"sqlite:///{tmp_path / 'db.sqlite'}")
    with sessions() as session:
        people = [Person(name=name, token_hash=name) for name in ("spammer", "other")]
        session.add_all(people)
        session.flush()
        for number in range(60):  # the spammer: 60 hand-ins (some failed, some kept no reports)
            session.add(
                Submission(
                    person_id=people[0].id,
                    chapter=NAME,
                    notebook=b"",
                    sha256="",
                    seed=1,
                    status="failed" if number % 7 == 3 else "graded",
                    reports=None if number % 5 == 4 else reports(int(number == 58)),
                )
            )
        session.add(
            Submission(
                person_id=people[1].id,
                chapter=NAME,
                notebook=b"",
                sha256="",
                seed=1,
                status="graded",
                reports=reports(0),
            )
        )
        session.commit()
        every = [
            (
                row.id,
                kept_from_data(
                    {
                        "student": row.person.name,
                        "chapter": NAME,
                        "reports": row.reports,
                        "flags": [],
                    }
                ),
            )
            for row in session.query(Submission).order_by(Submission.id)
            if row.status == "graded" and row.reports is not None
        ]
        read = graded_kept(session)
        assert len(read) == 3, [number for number, _ in read]
        first, last = first_and_last(every)
        assert first_and_last(read) == (first, last)
        assert live_rows(session) == diagnosis_rows(last, first, last)
