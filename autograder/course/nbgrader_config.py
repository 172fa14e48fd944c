"""nbgrader configuration shared by every proof-lm course directory (loaded by the one `course` writes)."""

from pathlib import Path

import nbgrader

import autograder.course

c = get_config()  # noqa: F821 - provided by traitlets when nbgrader loads this file

c.CourseDirectory.course_id = "proof-lm"
# Never copy anything but notebooks from a submission: a submitted numpy/__init__.py or *.pth
# would otherwise sit beside the notebook in the autograded folder.
c.CourseDirectory.ignore = [
    ".ipynb_checkpoints",
    "*.pyc",
    "__pycache__",
    "feedback",
    "*.py",
    "*.so",
    "*.pyd",
    "*.pth",
    "*.egg-link",
    "*.zip",
    "*.whl",
    "*/",
]
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}

# Grading (nbgrader records, the trusted grader runs the code): warnings are not failures.
c.IgnorePattern.enabled = True
c.IgnorePattern.pattern = r"Warning"
# A deleted test cell is put back and graded rather than left for manual grading.
c.OverwriteCells.add_missing_cells = True

# Feedback shows hints and scores, never the hidden tests' source or the mark scheme. Its header
# says the score as the client and the server do (`autograder.course.scores`): the course's
# template is nbgrader's feedback template with that header.
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "autograder.course.scores.FeedbackScore",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
    "nbgrader.preprocessors.ClearHiddenTests",
    "nbgrader.preprocessors.ClearMarkScheme",
    "autograder.course.outputs.OneLineErrors",
    "autograder.course.page_notebook.SafeNotebook",
]
# HTML or JavaScript a notebook displays is sanitized in feedback pages (no script of a student's
# reaches a page, and no style can hide the trusted report).
c.HTMLExporter.sanitize_html = True
# The course's feedback template (autograder/course/templates/feedback) first, then nbgrader's
# (its folder of templates, and the folder holding it: see the template's comment).
c.HTMLExporter.extra_template_basedirs = [
    str(Path(autograder.course.__file__).parent / "templates"),
    str(Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"),
    str(Path(nbgrader.__file__).parent / "server_extensions" / "formgrader"),
]
# nbgrader's formgrade and feedback templates render markdown without `clean_html`: every markdown
# cell, markdown output and comment goes through nh3 instead (the formgrader reads this too).
# nbconvert's own `clean_html` (for HTML outputs and code) is replaced by the same cleaner.
c.HTMLExporter.filters = {
    "markdown2html": "autograder.course.page_html.markdown2html",
    "clean_html": "autograder.course.page_html.clean_html",
}
