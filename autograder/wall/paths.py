"""Where the repository's parts are: the one home of the paths the grader and the sandbox use."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SOLUTIONS = REPO / "solutions"  # the instructor's source notebooks
INSIDE = REPO / "autograder" / "inside"  # everything a sandbox holds of the grader, mounted whole
