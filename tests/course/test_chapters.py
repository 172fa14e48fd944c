"""The student notebooks are nbgrader's output for the current sources, with nothing hidden left in."""

import itertools
import json

import pytest
from conftest import REPO
from support.markers import MARKERS

from autograder.course.directory import chapters
from autograder.course.release import student_notebooks
from autograder.judge.exercises import EXERCISES


def comparable(path):
    notebook = json.loads(path.read_text())
    return [(c["cell_type"], c["source"], c["metadata"].get("nbgrader")) for c in notebook["cells"]]


@pytest.mark.slow
def test_chapters_equal_what_nbgrader_generates_now(tmp_path):
    generated = student_notebooks(tmp_path)
    assert sorted(p.name for p in generated) == sorted(
        p.name for p in (REPO / "chapters").glob("*.ipynb")
    )
    for path in generated:
        assert comparable(path) == comparable(REPO / "chapters" / path.name), (
            f"chapters/{path.name} is stale: run `make chapters`"
        )


@pytest.mark.parametrize("chapter", chapters())
def test_no_solution_or_hidden_test_in_chapters(chapter):
    text = (REPO / "chapters" / f"{chapter}.ipynb").read_text()
    for marker in MARKERS:
        assert marker not in text
    solution = json.loads((REPO / "solutions" / f"{chapter}.ipynb").read_text())
    for cell in solution["cells"]:
        source = "".join(cell["source"])
        if "### BEGIN SOLUTION" in source:
            body = source.split("### BEGIN SOLUTION")[1].split("### END SOLUTION")[0].strip()
            assert body not in text


@pytest.mark.parametrize("chapter", chapters())
def test_each_exercise_has_a_solution_cell_and_a_graded_test_cell(chapter):
    cells = json.loads((REPO / "solutions" / f"{chapter}.ipynb").read_text())["cells"]
    meta = [c["metadata"].get("nbgrader", {}) for c in cells]
    graded = {m["grade_id"]: m["points"] for m in meta if m.get("grade") and not m.get("solution")}
    expected = {e.name: e.points for e in EXERCISES.values() if e.chapter == chapter}
    # a challenge's cell is worth 0 in nbgrader (the maximum stays the regular one): extra credit
    in_nbgrader = {
        e.name: 0 if e.extra else e.points for e in EXERCISES.values() if e.chapter == chapter
    }
    assert {k: v for k, v in graded.items() if k in expected} == in_nbgrader
    solutions = {m["grade_id"] for m in meta if m.get("solution") and not m.get("grade")}
    assert solutions == {f"{name}_code" for name in expected}


@pytest.mark.parametrize("chapter", chapters())
def test_a_test_cell_never_calls_another_exercise(chapter):
    """One bug costs one exercise: the notebook's score agrees with the trusted grader's."""
    cells = json.loads((REPO / "solutions" / f"{chapter}.ipynb").read_text())["cells"]
    names = [e.name for e in EXERCISES.values() if e.chapter == chapter]
    for cell in cells:
        grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if grade_id in names:
            visible = "".join(cell["source"]).split("### END HIDDEN TESTS")[-1]
            for other in set(names) - {grade_id}:
                assert f"{other}(" not in visible, f"the test of {grade_id} calls {other}"


GRADING_RULE = "How this notebook is graded"


@pytest.mark.parametrize("chapter", chapters())
def test_every_code_cell_is_a_solution_a_test_or_locked(chapter):
    """What grading runs is the student's cells; the instructor's must all be locked to be told apart."""
    notebook = json.loads((REPO / "solutions" / f"{chapter}.ipynb").read_text())
    for number, cell in enumerate(notebook["cells"]):
        meta = cell["metadata"].get("nbgrader", {})
        if cell["cell_type"] == "code":
            assert meta.get("solution") or meta.get("locked"), (
                f"{chapter}: code cell {number} is neither a solution cell nor locked"
            )


@pytest.mark.parametrize("chapter", chapters())
def test_the_first_cell_states_how_the_notebook_is_graded(chapter):
    notebook = json.loads((REPO / "chapters" / f"{chapter}.ipynb").read_text())
    assert GRADING_RULE in "".join(notebook["cells"][0]["source"])


CONVENTIONS = "**What every graded function promises**"


def _paragraph(text: str, start: str) -> str:
    """The paragraph of `text` that begins with `start`, its lines joined by spaces."""
    begin = text.index(start)
    end = text.find("\n\n", begin)
    return " ".join(text[begin : None if end < 0 else end].split())


@pytest.mark.parametrize("chapter", chapters())
def test_the_first_cell_states_the_conventions_of_every_graded_function(chapter):
    """An exercise's text states only what is its own: what every graded function promises (the
    caller's objects left as found, exact, random only through the generator it is handed) is stated once, at
    the top of every chapter, in the words of the kit's README, so no exercise's clause for it can
    stand out as the pointer to a planted bug."""
    first = "".join(
        json.loads((REPO / "chapters" / f"{chapter}.ipynb").read_text())["cells"][0]["source"]
    )
    readme = (REPO / "autograder" / "kit" / "student_readme.md").read_text()
    stated = _paragraph(first, CONVENTIONS)
    assert _paragraph(readme, CONVENTIONS).startswith(stated), f"{chapter} words them otherwise"
    for promise in ("as it found it", "the precision its text asks for", "from it alone"):
        assert promise in stated, f"{chapter} leaves out {promise!r}"


def written_answers(chapter: str) -> list[tuple[str, int, str, str]]:
    """(grade id, points, the heading cell before it, its source) of every manually graded answer."""
    cells = json.loads((REPO / "solutions" / f"{chapter}.ipynb").read_text())["cells"]
    found = []
    for before, cell in itertools.pairwise(cells):
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("grade") and meta.get("solution"):
            found.append(
                (
                    meta["grade_id"],
                    meta["points"],
                    "".join(before["source"]),
                    "".join(cell["source"]),
                )
            )
    return found


@pytest.mark.parametrize("chapter", chapters())
def test_written_answers_show_their_points_and_keep_their_rubric_out_of_chapters(chapter):
    released = (REPO / "chapters" / f"{chapter}.ipynb").read_text()
    assert "rubric" not in released.lower(), f"chapters/{chapter} shows an instructor's rubric"
    for grade_id, points, heading, source in written_answers(chapter):
        assert heading.startswith("## Written answer") and f"({points} points)" in heading, (
            f"{grade_id}: the heading above it must show its {points} points"
        )
        region = source.split("### BEGIN SOLUTION")[1].split("### END SOLUTION")[0]
        assert "**Rubric (instructor only," in region, (
            f"{grade_id}: no rubric in its solution region"
        )
        assert f"{points} points)" in region.split("**Rubric")[1].splitlines()[0], grade_id


def test_readme_states_the_points_the_grader_lists():
    autograded = sum(e.points for e in EXERCISES.values() if not e.extra)
    extra = sum(e.points for e in EXERCISES.values() if e.extra)
    written = sum(points for chapter in chapters() for _, points, _, _ in written_answers(chapter))
    readme = (REPO / "README.md").read_text()
    assert f"{autograded} autograded points" in readme
    assert f"{extra} points of extra credit" in readme
    assert f"{written} points of written answers" in readme
