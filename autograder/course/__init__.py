"""The instructor's side: release, collect, autograde (sandboxed), confirmation, feedback, export.

The student-facing core (command line, exercises, checks, sandboxed runner, reports) lives in
`autograder`; nothing here is needed to grade one's own notebook.
"""

from autograder.course.autograde import GradingIncomplete, autograde
from autograder.course.collect import collect, submitted_chapters
from autograder.course.export import export
from autograder.course.release import chapters, feedback, init_course, nbgrader_command, release

__all__ = [
    "GradingIncomplete",
    "autograde",
    "chapters",
    "collect",
    "export",
    "feedback",
    "init_course",
    "nbgrader_command",
    "release",
    "submitted_chapters",
]
