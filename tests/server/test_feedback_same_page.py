"""The submission server's feedback page is the page `make feedback` gives the instructor's class.

One notebook (a wrong answer, a failing top-level statement, a cell of the student's own that
prints, markdown with a formula) graded twice with the same seed: by the server's grading task
(`grading.grade_with_feedback`, the page the server stores and serves as it is) and by the
instructor's flow on a real course (collect, `autograde`, `feedback`). The two pages are the same
bytes, Content-Security-Policy included.
"""

import pytest
from conftest import released_course
from support.simulate import reference_code, replace_function, submission

from autograder.course.autograde import autograde, release_data
from autograder.course.collect import collect
from autograder.course.release import feedback
from autograder.course.task import Job
from autograder.server.grading import grade_with_feedback

pytestmark = pytest.mark.slow
CHAPTER = "01_bigram_counting"
SEED = 20261205


def own_cells(notebook: dict) -> None:
    """A student's own cells (with ids, as Jupyter writes them): markdown with a formula, a print,
    a statement that fails."""
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


def test_the_servers_feedback_page_is_the_page_make_feedback_gives(tmp_path):
    course = released_course(tmp_path / "course")
    code = reference_code(CHAPTER)
    code["mean_nll_code"] = replace_function(
        code["mean_nll_code"], "mean_nll", "return float(-np.log(probs[0, 0]))"
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
    for shown in ("mean_nll: 0/", "hello from my own cell", "NameError", "<math"):
        assert shown in made, shown
    assert served.feedback == made
