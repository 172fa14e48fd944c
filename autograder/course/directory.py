"""The course directory's facts, their one home: its chapters, its gradebook, what was submitted."""

from pathlib import Path

from autograder.paths import SOLUTIONS


def chapters() -> list[str]:
    """Every chapter with a source notebook, in order."""
    return sorted(path.stem for path in SOLUTIONS.glob("[0-9][0-9]_*.ipynb"))


def db_url(root: Path) -> str:
    """The course's gradebook database."""
    return f"sqlite:///{root / 'gradebook.db'}"


def released_chapters(root: Path) -> list[str]:
    """Chapters released in the course directory (a folder in its source/)."""
    return sorted(path.name for path in (root / "source").iterdir() if path.is_dir())


def submitted_chapters(root: Path) -> list[str]:
    """Chapters that have at least one submission."""
    return sorted({path.name for path in (root / "submitted").glob("*/*") if path.is_dir()})
