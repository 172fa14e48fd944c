"""Simulated students: submissions made from a released notebook, the way a student edits one.

Used by the test suite and by benchmarks/class_grading.py to build classes of honest, buggy and
tampering students from the reference solutions.
"""

import json
import shutil
from collections.abc import Callable
from pathlib import Path

from autograder.judge.references import reference_solutions


def reference_code(chapter: str) -> dict[str, str]:
    """The reference solution cells of a chapter, solution markers removed, by grade id."""
    return {f"{name}_code": source for name, source in reference_solutions(chapter).items()}


def submission(
    released: Path, target: Path, code: dict[str, str], edit: Callable[[dict], None] | None = None
) -> Path:
    """Write a copy of `released` whose solution cells hold `code` (by grade id); `edit` may change cells."""
    notebook = json.loads(released.read_text())
    for cell in notebook["cells"]:
        grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if grade_id in code:
            cell["source"] = code[grade_id]
    if edit is not None:
        edit(notebook)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(notebook))
    return target


def replace_function(code: str, name: str, body: str) -> str:
    """Replace the body of `def name(...)` in `code` by `body` (indented by four spaces)."""
    head, _, _ = code.partition(f"def {name}(")
    signature = code[len(head) :].split("\n", 1)[0]
    indented = "\n".join("    " + line for line in body.strip().splitlines())
    return f"{head}{signature}\n{indented}\n"


def copy_course(course: Path, target: Path, students: set[str] | None = None) -> Path:
    """A copy of the course (only `students`' submissions when given; its configuration names no
    path, so it configures the copy); `target` may be an empty folder already."""
    shutil.copytree(course, target, dirs_exist_ok=True)
    if students is not None:
        for folder in (target / "submitted").iterdir():
            if folder.name not in students:
                shutil.rmtree(folder)
    return target
