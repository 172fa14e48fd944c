"""Shared paths and helpers for the test suites."""

import sys
from pathlib import Path

import pytest

assert "numpy" not in sys.modules, "NumPy loaded before the conftest: its BLAS pool is already up"
import autograder  # noqa: F401, E402  first, before NumPy loads: one BLAS thread (see autograder/__init__.py)

REPO = Path(__file__).resolve().parent.parent
LECTURES_NAMES = REPO.parent / "shared" / "data" / "names.txt"
IMPLEMENTATIONS = REPO / "tests" / "implementations"
PYTHON = sys.executable


@pytest.fixture
def lectures_names() -> Path:
    """The makemore lectures' names.txt beside the project; skip when it is not there."""
    if not LECTURES_NAMES.is_file():
        pytest.skip("the lectures' names.txt is not beside the project")
    return LECTURES_NAMES
