"""Where the repository's parts are: the one home of the paths the grader and the sandbox use."""

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOLUTIONS = REPO / "solutions"  # the instructor's source notebooks
