"""Collecting a class's hand-ins into the course: notebooks only, regular files only, safe names.

A hand-in that cannot be collected safely costs that hand-in alone (a student folder that cannot,
that student alone): it is refused, named in COURSE/collected.json under "_refused" and on the
command line (with repr(), never raw), and everyone else is collected. A refusal stays recorded
until that hand-in (for a refused folder, any hand-in of that name) is collected, whatever is
collected in between, and `export` writes it into grades.csv as a flag: nothing handed in is
dropped without a word.
"""

import hashlib
import json
import os
import re
import shutil
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from autograder.course.directory import chapters
from autograder.judge.notebook import MAX_NOTEBOOK_BYTES

SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@+-]*")
MAX_ENTRIES = 10_000  # files and folders looked at in one student's folder
REFUSED = "_refused"  # the manifest's key for refusals (no student name starts with "_")


@dataclass(frozen=True)
class Refusal:
    """A student folder (chapter None) or one hand-in that was not collected, and why."""

    student: str
    chapter: str | None
    why: str

    def __str__(self) -> str:
        what = repr(self.student) + (f" {self.chapter}" if self.chapter else "")
        return f"refused {what}: {self.why}"


@dataclass
class Collected:
    """What one collect did: the (student, chapter) notebooks copied, and the refusals."""

    notebooks: list[tuple[str, str]]
    refused: list[Refusal]


def _safe_name(name: str) -> bool:
    """Student and file names: letters, digits and _.@+- only (no glob characters, no separators)."""
    return bool(SAFE_NAME.fullmatch(name)) and name not in (".", "..")


def _entries(student_dir: Path) -> list[tuple[str, os.stat_result]]:
    """(relative path, lstat) of everything under a student's folder, links never followed."""
    found, pending = [], [student_dir]
    while pending:
        folder = pending.pop()
        with os.scandir(folder) as listing:
            for entry in listing:
                info = entry.stat(follow_symlinks=False)
                found.append((os.path.relpath(entry.path, student_dir), info))
                if len(found) > MAX_ENTRIES:
                    raise ValueError(f"more than {MAX_ENTRIES} files and folders")
                if stat.S_ISDIR(info.st_mode):
                    pending.append(Path(entry.path))
    return sorted(found, key=lambda item: item[0])


def _read_notebook(path: Path) -> bytes:
    """The bytes of a handed-in notebook: a regular file, no link, at most MAX_NOTEBOOK_BYTES."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)  # a FIFO never blocks us
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("not a regular file")
        data = handle.read(MAX_NOTEBOOK_BYTES + 1)
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise ValueError(f"larger than {MAX_NOTEBOOK_BYTES // 1024**2} MB")
    return data


def _student(
    root: Path, student_dir: Path, manifest: dict, result: Collected, known: set[str]
) -> None:
    """Collect one student's folder into `root`, refusals into `result`."""
    name = student_dir.name
    if not _safe_name(name):
        result.refused.append(Refusal(name, None, "use letters, digits and _ . @ + - only"))
        return
    info = os.lstat(student_dir)
    if not stat.S_ISDIR(info.st_mode):
        result.refused.append(Refusal(name, None, "each student needs a plain folder"))
        return
    try:
        entries = _entries(student_dir)
    except (OSError, ValueError) as error:
        result.refused.append(Refusal(name, None, f"its folder cannot be read ({error})"))
        return
    notebooks = {f"{chapter}.ipynb" for chapter in known}
    extras = [
        path for path, info in entries if path not in notebooks and not stat.S_ISDIR(info.st_mode)
    ]
    for path, info in entries:
        if path not in notebooks:
            continue
        chapter = path.removesuffix(".ipynb")
        if not stat.S_ISREG(info.st_mode):
            kind = "a link" if stat.S_ISLNK(info.st_mode) else "not a regular file"
            result.refused.append(Refusal(name, chapter, f"the hand-in is {kind}"))
            continue
        try:
            data = _read_notebook(student_dir / path)
        except (OSError, ValueError) as error:
            why = error.strerror if isinstance(error, OSError) else str(error)
            result.refused.append(Refusal(name, chapter, f"the hand-in cannot be read ({why})"))
            continue
        target = root / "submitted" / name / chapter
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        (target / path).write_bytes(data)  # the notebook alone, nothing beside it
        manifest.setdefault(name, {})[chapter] = {
            "sha256": hashlib.sha256(data).hexdigest(),
            "not_copied": [repr(p) if not _printable(p) else p for p in extras],
        }
        result.notebooks.append((name, chapter))


def _printable(path: str) -> bool:
    """Whether every part of a relative path is a safe name (else it is recorded as its repr())."""
    return all(_safe_name(part) for part in Path(path).parts)


def _standing(earlier: list[dict], result: Collected) -> list[dict]:
    """The refusals of earlier collects that still stand: neither refused again nor collected since."""
    settled = {(r.student, r.chapter) for r in result.refused} | set(result.notebooks)
    students = {student for student, _ in result.notebooks}
    return [
        entry
        for entry in earlier
        if (entry["student"], entry["chapter"]) not in settled
        and not (entry["chapter"] is None and entry["student"] in students)
    ]


def collect(root: Path, submissions: Path, refused: Iterable[Refusal] = ()) -> Collected:
    """Copy SUBMISSIONS/<student>/<chapter>.ipynb into submitted/, notebooks only.

    Only regular files no larger than MAX_NOTEBOOK_BYTES are copied, and only from student folders
    whose names are safe (letters, digits and _.@+-): anything else (a link, a FIFO, a folder
    named like a notebook, an unreadable file, an unsafe name) is refused for that hand-in or that
    student alone. Other files a student handed in (.py files, folders, ...) are not copied, and are
    recorded in COURSE/collected.json beside the sha256 of every notebook, so that grading can flag
    both; refusals (with `refused`, those found before: a name the server holds that is not a plain
    one) are recorded there under "_refused", beside the earlier ones that still stand.
    """
    manifest_path = root / "collected.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    result = Collected([], list(refused))
    known = set(chapters())
    for student_dir in sorted(submissions.iterdir()):
        _student(root, student_dir, manifest, result, known)
    manifest[REFUSED] = _standing(manifest.get(REFUSED, []), result) + [
        {"student": r.student, "chapter": r.chapter, "why": r.why} for r in result.refused
    ]
    root.mkdir(parents=True, exist_ok=True)
    manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True))
    return result
