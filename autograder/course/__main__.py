"""The instructor's flow on a real nbgrader course directory: release, collect, autograde, feedback, export.

python -m autograder.course release  [--root course] [CHAPTER ...]
python -m autograder.course collect  SUBMISSIONS [--root course]   # SUBMISSIONS/<student>/<chapter>.ipynb
python -m autograder.course autograde [--root course] [--scheduler tcp://host:8786] [--seed N] [--force] [CHAPTER ...]
python -m autograder.course feedback [--root course] [CHAPTER ...]
python -m autograder.course export   [--root course] [--to grades.csv]
"""

import argparse
import sys
from pathlib import Path

from autograder.course.autograde import GradingIncomplete, autograde
from autograder.course.collect import collect, submitted_chapters
from autograder.course.export import export
from autograder.course.printable import printable
from autograder.course.release import chapters, feedback, release, student_notebooks
from autograder.wall import sandbox
from autograder.wall.paths import REPO


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
    parser.add_argument(
        "--scheduler",
        help="a running Dask scheduler (tcp://host:port); default: a local cluster, one worker per core",
    )
    parser.add_argument(
        "--workers", type=int, help="local cluster: worker processes (default: cores)"
    )
    parser.add_argument("--seed", type=int, help="seed of the hidden cases (default: a new one)")
    parser.add_argument(
        "--force", action="store_true", help="grade every submission again, changed or not"
    )
    args = parser.parse_intermixed_args(argv)
    root = args.root
    if args.step == "release":
        for path in release(root, args.chapters or chapters()):
            print(f"released {path}")
    elif args.step == "collect":
        if len(args.chapters) != 1 or not Path(args.chapters[0]).is_dir():
            parser.error("collect takes one folder: SUBMISSIONS/<student>/<chapter>.ipynb")
        collected = collect(root, Path(args.chapters[0]))
        for student, chapter in collected.notebooks:
            print(f"collected {printable(student)} {printable(chapter)}")
        for refusal in collected.refused:  # that hand-in (or student) alone; see collected.json
            print(printable(refusal), file=sys.stderr)
    elif args.step == "autograde":
        if args.no_sandbox:
            print("WARNING: --no-sandbox: student code runs unconfined, as you", file=sys.stderr)
        try:
            outcome = autograde(
                root,
                args.chapters or submitted_chapters(root),
                not args.no_sandbox,
                scheduler=args.scheduler,
                seed=args.seed,
                force=args.force,
                workers=args.workers,
            )
        except sandbox.SandboxUnavailable as error:
            print(
                f"refusing to grade: {error}; or pass --no-sandbox to accept the risk",
                file=sys.stderr,
            )
            return 2
        except GradingIncomplete as error:
            print(f"ERROR: {printable(error, limit=5000)}", file=sys.stderr)
            return 1
        print(
            f"graded {len(outcome.graded)} submissions in {outcome.seconds:.1f} s "
            f"({outcome.skipped} unchanged, not graded again)"
        )
        for student, chapters_flagged in sorted(outcome.flags.items()):
            for chapter, reasons in chapters_flagged.items():
                shown = "; ".join(map(printable, reasons))
                print(f"FLAGGED {printable(student)} {printable(chapter)}: {shown}")
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
