"""Where the repository's parts are: the one home of the paths the grader and the sandbox use."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOLUTIONS = REPO / "solutions"  # the instructor's source notebooks
# everything a sandbox holds of the grader, mounted whole
GUEST = REPO / "autograder" / "sandbox" / "guest"
