"""The submission server's feedback page is the page `make feedback` gives the instructor's class,
and every score shown of one submission is the same: the autograded points out of the autograded
total, the extra credit apart, the written answers graded by the instructor.

One notebook of chapter 05 (a challenge and a written answer; a wrong answer, a failing top-level
statement in a cell of the student's own that prints, markdown with a formula) graded twice with
the same seed: by the server's grading task (`grading.grade_with_feedback`, the page the server
stores and serves as it is) and by the instructor's flow on a real course (collect, `autograde`,
`feedback`). The two pages are the same bytes, Content-Security-Policy included; their header,
read in a browser, the client's score line, the server's pages and `make export` say one score;
the failing statement's note names the notebook's cell, once. Once the instructor grades the
written answer in the gradebook, `make feedback` shows its points.
"""

import csv

import pytest
from conftest import released_course
from support.browser import browser_page, chromium
from support.simulate import reference_code, replace_function, submission

from autograder.course.autograde import autograde, release_data
from autograder.course.collect import collect
from autograder.course.export import export
from autograder.course.release import feedback
from autograder.course.task import Job
from autograder.kit.client import report
from autograder.server.grading import grade_with_feedback
from autograder.server.web import score

pytestmark = pytest.mark.slow
CHAPTER = "05_sampling"
WRITTEN = "written_top_p_against_top_k"
SEED = 20261205
# top_k_probs wrong (2 points lost), the challenge solved (2 of extra credit), the written answer
# (2 points) not graded yet
SCORE = (
    "Score: 6/8 + extra credit 2/2; written answers: graded by your instructor (2 points, pending)"
)
GRADED = "Score: 6/8 + extra credit 2/2; written answers: 1.5/2, graded by your instructor"


def own_cells(notebook: dict) -> None:
    """A student's own cells (with ids, as Jupyter writes them) after the notebook's first cell:
    markdown with a formula, then a print and a statement that fails (the notebook's cell 3)."""
    notebook["cells"][1:1] = [
        {
            "cell_type": "markdown",
            "id": "own-notes",
            "metadata": {},
            "source": "My notes: $p(b \\mid a) = c / n$.",
        },
        {
            "cell_type": "code",
            "id": "own-code",
            "metadata": {},
            "execution_count": None,
            "outputs": [],
            "source": "print('hello from my own cell')\nundefined_name + 1",
        },
    ]


def written_heading(page: str) -> str:
    """The heading nbgrader's template gives the written answer's cell."""
    return page.split(f'<a name="comment-{WRITTEN}"></a>', 1)[1].split("</div>", 1)[0]


def header(page: str) -> str:
    """The feedback page's header as a browser shows it."""
    with browser_page(chromium()) as browser:
        browser.set_content(page)
        return browser.locator("#score").inner_text()


@pytest.mark.browser
def test_the_servers_feedback_page_is_the_page_make_feedback_gives(tmp_path):
    course = released_course(tmp_path / "course", CHAPTER)
    code = reference_code(CHAPTER)
    code["top_k_probs_code"] = replace_function(
        code["top_k_probs_code"], "top_k_probs", "return probs / probs.sum()"
    )
    # an answer written (one left blank is scored 0 by nbgrader: nothing to wait for)
    code[WRITTEN] = (
        "Top-p keeps as many tokens as the distribution's shape needs; top-k a fixed count."
    )
    notebook = submission(
        course / "release" / CHAPTER / f"{CHAPTER}.ipynb",
        tmp_path / "submissions" / "s1" / f"{CHAPTER}.ipynb",
        code,
        own_cells,
    )

    served = grade_with_feedback(
        Job(CHAPTER, "s1", notebook.read_bytes()), release_data(course, [CHAPTER]), SEED, True
    )
    collect(course, tmp_path / "submissions")
    autograde(course, [CHAPTER], seed=SEED, workers=1)
    feedback(course, [CHAPTER])
    made = (course / "feedback" / "s1" / CHAPTER / f"{CHAPTER}.html").read_text()

    assert served.feedback is not None
    # the page shows what the grading found: the wrong answer's hint, the student's own output
    for shown in ("top_k_probs: 0/", "hello from my own cell", "NameError", "<math"):
        assert shown in made, shown
    assert served.feedback == made

    # one score: the page's header (nbgrader's said 8 / 10), the client, the server's pages, export
    assert header(made) == f"{CHAPTER} ({SCORE})"
    assert "Score:" not in written_heading(made), "a written answer not graded yet is not scored 0"
    assert f"{WRITTEN} (written answer): graded by your instructor (2 points, pending)" in made
    record = {
        "status": "graded",
        "points": served.points,
        "max_points": served.max_points,
        "exercises": served.exercises,
        "written": served.written,
    }
    assert report(record).splitlines()[-1] == SCORE
    assert score(record) == SCORE
    export(course, tmp_path / "grades.csv")
    with (tmp_path / "grades.csv").open() as handle:
        (row,) = csv.DictReader(handle)
    assert (row["total"], row["max_total"], row["extra_credit"]) == ("6.0", "8", "2.0"), row

    # the failing statement is placed by the notebook's own cell number, and said once
    assert made.count("cell 3 of the notebook (it begins") == 1, "one note, not one per exercise"

    # the instructor grades the written answer in the gradebook: the page shows its points
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        gradebook.find_grade(WRITTEN, CHAPTER, CHAPTER, "s1").manual_score = 1.5
        gradebook.db.commit()
    feedback(course, [CHAPTER])
    again = (course / "feedback" / "s1" / CHAPTER / f"{CHAPTER}.html").read_text()
    assert f'<h4 id="score">{CHAPTER} ({GRADED})</h4>' in again
    assert f"{WRITTEN} (written answer): 1.5/2, graded by your instructor" in again
    assert "Score: 1.5 / 2.0" in written_heading(again)
