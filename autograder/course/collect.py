"""Collecting a class's hand-ins into the course: notebooks only, regular files only, safe names."""

import hashlib
import json
import re
import shutil
from pathlib import Path

from autograder.course.printable import printable
from autograder.course.release import chapters

SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@+-]*")


def _refuse(why: str) -> None:
    raise ValueError(printable(f"collect refuses {why}"))


def _check_name(kind: str, name: str) -> None:
    """Student and file names: letters, digits and _.@+- only (no glob characters, no separators)."""
    if not SAFE_NAME.fullmatch(name) or name in (".", ".."):
        _refuse(f"the {kind} name {name!r}: use letters, digits and _ . @ + - only")


def collect(root: Path, submissions: Path) -> list[tuple[str, str]]:
    """Copy SUBMISSIONS/<student>/<chapter>.ipynb into submitted/, notebooks only; return (student, chapter).

    Only regular files are copied: a symbolic link, a device or a pipe anywhere in a student's
    folder is refused with a ValueError naming it, as are names with glob characters or path
    separators. Anything else a student handed in (.py files, folders, ...) is not copied, and is
    recorded in COURSE/collected.json beside the sha256 of every notebook, so that grading can flag both.
    """
    manifest_path = root / "collected.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    students = sorted(submissions.iterdir())
    for student_dir in students:  # check everything before copying anything
        _check_name("student", student_dir.name)
        if student_dir.is_symlink() or not student_dir.is_dir():
            _refuse(f"{student_dir}: each student needs a plain folder")
        for path in student_dir.rglob("*"):
            if path.is_symlink() or not (path.is_file() or path.is_dir()):
                _refuse(f"{path}: only regular files can be handed in (links and devices cannot)")
    collected = []
    for student_dir in students:
        extras = sorted(
            str(p.relative_to(student_dir))
            for p in student_dir.rglob("*")
            if p.is_file()
            and not (p.parent == student_dir and p.suffix == ".ipynb" and p.stem in chapters())
        )
        for notebook in sorted(student_dir.glob("*.ipynb")):
            if notebook.stem not in chapters():
                continue
            target = root / "submitted" / student_dir.name / notebook.stem
            if target.exists():
                shutil.rmtree(target)
            target.mkdir(parents=True)
            data = notebook.read_bytes()
            (target / notebook.name).write_bytes(data)  # the notebook alone, nothing beside it
            manifest.setdefault(student_dir.name, {})[notebook.stem] = {
                "sha256": hashlib.sha256(data).hexdigest(),
                "not_copied": extras,
            }
            collected.append((student_dir.name, notebook.stem))
    manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True))
    return collected


def submitted_chapters(root: Path) -> list[str]:
    """Chapters that have at least one submission."""
    return sorted({path.name for path in (root / "submitted").glob("*/*") if path.is_dir()})
