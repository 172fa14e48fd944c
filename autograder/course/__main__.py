"""The instructor's flow on a real nbgrader course directory: release, collect, autograde, feedback, export.

python -m autograder.course release  [--root course] [CHAPTER ...]
python -m autograder.course collect  SUBMISSIONS [--root course]   # SUBMISSIONS/<student>/<chapter>.ipynb
python -m autograder.course collect  --from-server [--root course] [--db URL]   # by DEADLINES
python -m autograder.course autograde [--root course] [--scheduler tcp://host:8786] [--seed N] [--force] [CHAPTER ...]
python -m autograder.course feedback [--root course] [CHAPTER ...]
python -m autograder.course export   [--root course] [--to grades.csv]
python -m autograder.course tokens   [--root course] [--instructor NAME] STUDENT ...   # student,token lines
python -m autograder.course serve    [--root course] [--host 127.0.0.1] [--port 8000] [--per-hour 6]
                                     [--max-bytes 10000000] [--scheduler ADDR] [--db URL]
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
        "step",
        choices=[
            "release",
            "collect",
            "autograde",
            "feedback",
            "export",
            "chapters",
            "tokens",
            "serve",
        ],
    )
    parser.add_argument(
        "chapters",
        nargs="*",
        help="chapters (default: all); for collect, the folder; for tokens, the students",
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
    parser.add_argument(
        "--from-server",
        action="store_true",
        help="collect: each student's latest submission by the deadline, from the server's --db",
    )
    server = parser.add_argument_group("tokens and serve (the submission server)")
    server.add_argument("--instructor", action="append", default=[], help="tokens: an instructor")
    server.add_argument("--host", default="127.0.0.1", help="serve: address to listen on")
    server.add_argument("--port", type=int, default=8000, help="serve: port")
    server.add_argument(
        "--per-hour", type=int, default=6, help="serve: submissions per student and chapter an hour"
    )
    server.add_argument(
        "--max-bytes", type=int, default=10_000_000, help="serve: the largest notebook accepted"
    )
    server.add_argument(
        "--queue", type=int, default=500, help="serve: submissions waiting at most (then 503)"
    )
    server.add_argument(
        "--waiting",
        type=int,
        default=3,
        help="serve: one student's submissions waiting to be graded at most (then 409)",
    )
    server.add_argument(
        "--body-seconds",
        type=float,
        default=120.0,
        help="serve: an upload not received in full within this time gets 408 (default 120)",
    )
    server.add_argument(
        "--refused-per-hour",
        type=int,
        default=20,
        help="serve: a student's uploads refused (408, 413, 422) or cut off, an hour; then 429",
    )
    server.add_argument(
        "--db",
        help="serve, tokens: SQLAlchemy URL (default: $DATABASE_URL or COURSE/submissions.db)",
    )
    args = parser.parse_intermixed_args(argv)
    root = args.root
    if args.step in ("tokens", "serve"):
        from autograder.server.cli import serve, tokens

        if args.step == "tokens":
            return tokens(root, args.chapters, args.instructor, args.db, parser)
        return serve(args)
    if args.step == "release":
        for path in release(root, args.chapters or chapters()):
            print(f"released {path}")
    elif args.step == "collect" and args.from_server:
        if args.chapters:
            parser.error("collect --from-server takes no folder: it reads the server's database")
        from autograder.course.collect_server import collect_from_server

        from_server = collect_from_server(root, args.db)
        for student, chapter in from_server.collected.notebooks:
            print(f"collected {printable(student)} {printable(chapter)}")
        for student, chapter, submission in from_server.late:
            print(f"late {printable(student)} {printable(chapter)}: submission {submission}")
        for refusal in from_server.collected.refused:
            print(printable(refusal), file=sys.stderr)
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
