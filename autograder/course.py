"""The instructor's flow on a real nbgrader course directory: release, collect, autograde, feedback, export.

python -m autograder.course release  [--root course] [CHAPTER ...]
python -m autograder.course collect  SUBMISSIONS [--root course]   # SUBMISSIONS/<student>/<chapter>.ipynb
python -m autograder.course autograde [--root course] [CHAPTER ...]
python -m autograder.course feedback [--root course] [CHAPTER ...]
python -m autograder.course export   [--root course] [--to grades.csv]
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from autograder import sandbox
from autograder.class_grading import GradingIncomplete, autograde_class, export_csv

REPO = Path(__file__).resolve().parent.parent
SOLUTIONS = REPO / "solutions"
CONFIG = Path(__file__).resolve().parent / "nbgrader_config.py"


def chapters() -> list[str]:
    """Every chapter with a source notebook, in order."""
    return sorted(path.stem for path in SOLUTIONS.glob("[0-9][0-9]_*.ipynb"))


def nbgrader(root: Path, *args: str) -> subprocess.CompletedProcess:
    """Run an nbgrader command in the course root, with this environment's tools (alembic) on PATH."""
    env = dict(
        os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    )
    env.pop("NBGRADER_EXECUTION", None)
    command = [sys.executable, "-m", "nbgrader", *args]
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(
            f"nbgrader {' '.join(args)} failed ({done.returncode}):\n{done.stderr[-3000:]}"
        )
    return done


def init_course(root: Path) -> Path:
    """Create the course directory and its nbgrader_config.py (which loads the shared configuration)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "nbgrader_config.py").write_text(
        f"c = get_config()  # noqa: F821\nload_subconfig({str(CONFIG)!r})  # noqa: F821\n"
        f"c.CourseDirectory.root = {str(root.resolve())!r}\n"
    )
    return root


def release(root: Path, names: list[str]) -> list[Path]:
    """Copy the source notebooks in and generate the student versions; return their paths."""
    init_course(root)
    released = []
    for chapter in names:
        source = root / "source" / chapter
        source.mkdir(parents=True, exist_ok=True)
        shutil.copy2(SOLUTIONS / f"{chapter}.ipynb", source / f"{chapter}.ipynb")
        nbgrader(root, "generate_assignment", chapter, "--force")
        released.append(root / "release" / chapter / f"{chapter}.ipynb")
    return released


def student_notebooks(target: Path) -> list[Path]:
    """Generate every chapter's student notebook with nbgrader (in a scratch course) and copy it to `target`."""
    with tempfile.TemporaryDirectory(prefix="proof-lm-release-") as scratch:
        written = []
        for released in release(Path(scratch), chapters()):
            target.mkdir(parents=True, exist_ok=True)
            written.append(Path(shutil.copyfile(released, target / released.name)))
        return written


SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@+-]*")


def _refuse(why: str) -> None:
    raise ValueError(f"collect refuses {why}")


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


def autograde(root: Path, names: list[str], sandboxed: bool = True) -> dict:
    """Autograde every submission on both cores, confirm each score on the trusted path; return flags.

    SandboxUnavailable (with install instructions) unless bubblewrap works or `sandboxed` is False.
    """
    if sandboxed:
        sandbox.check_available()
    return autograde_class(root, names, sandboxed=sandboxed)


def feedback(root: Path, names: list[str]) -> None:
    """Generate feedback HTML (hints and scores, no hidden-test source) for the given chapters."""
    for chapter in names:
        nbgrader(root, "generate_feedback", chapter, "--force")


def export(root: Path, to: Path) -> Path:
    """One row per student: points per chapter, total and flags (CSV)."""
    return export_csv(
        root, to, sorted({path.name for path in (root / "source").iterdir() if path.is_dir()})
    )


def main(argv: list[str] | None = None) -> int:
    """Command line for the instructor's flow."""
    parser = argparse.ArgumentParser(
        prog="python -m autograder.course",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "step", choices=["release", "collect", "autograde", "feedback", "export", "chapters"]
    )
    parser.add_argument(
        "chapters", nargs="*", help="chapters (default: all) or, for collect, the folder"
    )
    parser.add_argument("--root", type=Path, default=REPO / "course", help="course directory")
    parser.add_argument("--to", type=Path, default=Path("grades.csv"), help="CSV path for export")
    parser.add_argument(
        "--no-sandbox",
        action="store_true",
        help="autograde without the OS sandbox (unsafe; written into flags and grades.csv)",
    )
    args = parser.parse_intermixed_args(argv)
    root = args.root
    if args.step == "release":
        for path in release(root, args.chapters or chapters()):
            print(f"released {path}")
    elif args.step == "collect":
        if len(args.chapters) != 1 or not Path(args.chapters[0]).is_dir():
            parser.error("collect takes one folder: SUBMISSIONS/<student>/<chapter>.ipynb")
        try:
            collected = collect(root, Path(args.chapters[0]))
        except ValueError as error:
            print(error, file=sys.stderr)
            return 2
        for student, chapter in collected:
            print(f"collected {student} {chapter}")
    elif args.step == "autograde":
        if args.no_sandbox:
            print("WARNING: --no-sandbox: student code runs unconfined, as you", file=sys.stderr)
        try:
            flags = autograde(root, args.chapters or submitted_chapters(root), not args.no_sandbox)
        except sandbox.SandboxUnavailable as error:
            print(
                f"refusing to grade: {error}; or pass --no-sandbox to accept the risk",
                file=sys.stderr,
            )
            return 2
        except GradingIncomplete as error:
            print(f"ERROR: {error}", file=sys.stderr)
            return 1
        for student, chapters_flagged in sorted(flags.items()):
            for chapter, reasons in chapters_flagged.items():
                print(f"FLAGGED {student} {chapter}: {'; '.join(reasons)}")
    elif args.step == "feedback":
        feedback(root, args.chapters or submitted_chapters(root))
        print(f"feedback in {root / 'feedback'}")
    elif args.step == "export":
        print(f"exported {export(root, args.to)}")
    else:
        for path in student_notebooks(REPO / "chapters"):
            print(f"wrote {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
