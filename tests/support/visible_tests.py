"""Run a debug exercise's visible tests on each catalogued draft with one bug left.

`python -m tests.support.visible_tests NAME...` prints, as JSON, what each exercise's visible tests
(the grade cell after its hidden tests) say of `correct_draft_fixed.py` and of every
`wrong_draft_*_left.py`: "pass", or the error they raised. The chapter's set-up cells and the
reference solutions run first, in the order of the notebook; demonstrations do not.
"""

import contextlib
import io
import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
IMPLEMENTATIONS = REPO / "tests" / "implementations"


def _grade_id(cell: dict) -> str:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")


def _prefix_and_visible(chapter: str, name: str) -> tuple[list[str], str]:
    """The set-up and solution cells before `name`'s grade cell, and that cell's visible tests."""
    notebook = json.loads((REPO / "solutions" / f"{chapter}.ipynb").read_text())
    prefix = []
    for cell in notebook["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] != "code":
            continue
        if _grade_id(cell) == name:
            return prefix, source.split("### END HIDDEN TESTS", 1)[1]
        if _grade_id(cell) in ("setup", "setup_demos") or cell["metadata"].get("nbgrader", {}).get(
            "solution"
        ):
            prefix.append(source)
    raise ValueError(f"{chapter} has no grade cell {name!r}")


def verdicts(chapter: str, name: str) -> dict[str, str]:
    """{file stem: "pass" or the error} for the fixed draft and each draft with one bug left."""
    prefix, visible = _prefix_and_visible(chapter, name)
    namespace: dict = {}
    quiet = contextlib.redirect_stdout(io.StringIO())  # what the cells print is not the verdict
    with quiet:
        for source in prefix:
            exec(source, namespace)
    found = {}
    files = [IMPLEMENTATIONS / name / "correct_draft_fixed.py"]
    files += sorted((IMPLEMENTATIONS / name).glob("wrong_draft_*_left.py"))
    for path in files:
        candidate: dict = dict(namespace)
        exec(path.read_text(), candidate)
        try:
            with quiet:
                exec(visible, {**namespace, name: candidate[name]})
            found[path.stem] = "pass"
        except Exception as error:  # what the student would see: the visible test's failure
            found[path.stem] = f"{type(error).__name__}: {error}"
    return found


def main(names: list[str]) -> None:
    """Print the verdicts of every exercise in `names` as JSON."""
    from autograder.judge.exercises import EXERCISES

    os.environ["PROOF_LM_DEMO"] = "small"
    print(json.dumps({name: verdicts(EXERCISES[name].chapter, name) for name in names}))


if __name__ == "__main__":
    main(sys.argv[1:])
