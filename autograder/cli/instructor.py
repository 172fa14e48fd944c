"""The instructor's flow on a real nbgrader course directory: release, collect, autograde, feedback, export.

python -m autograder.cli.instructor init     [--root course]   # the course directory, DEADLINES to fill in
python -m autograder.cli.instructor release  [--root course] [CHAPTER ...]
python -m autograder.cli.instructor collect  SUBMISSIONS [--root course]   # SUBMISSIONS/<student>/<chapter>.ipynb
python -m autograder.cli.instructor collect  --from-server [--root course] [--db URL]   # by DEADLINES
python -m autograder.cli.instructor autograde [--root course] [--scheduler tcp://host:8786] [--seed N] [--force] [CHAPTER ...]
python -m autograder.cli.instructor feedback [--root course] [CHAPTER ...]
python -m autograder.cli.instructor export   [--root course] [--to grades.csv] [--roster roster.csv]
python -m autograder.cli.instructor report   [--root course] [--db URL] [--threshold 0.8]   # report.html, diagnoses.csv
python -m autograder.cli.instructor tokens   [--root course] [--instructor NAME] STUDENT ...   # student,token lines
                                     [--submit-toml DIR --server URL]   # or DIR/<student>/submit.toml
python -m autograder.cli.instructor serve    [--root course] [--host 127.0.0.1] [--port 8000] [--per-hour 6]
                                     [--max-bytes 10000000] [--scheduler ADDR] [--db URL]
"""

import argparse
import sys
from pathlib import Path

from autograder.course.autograde import GradingIncomplete, autograde
from autograder.course.collect import collect
from autograder.course.directory import chapters, released_chapters, submitted_chapters
from autograder.course.export import export
from autograder.course.lms import export_lms
from autograder.course.printable import printable
from autograder.course.release import feedback, init_course, release, student_notebooks
from autograder.paths import REPO
from autograder.sandbox.host import bwrap


def main(argv: list[str] | None = None) -> int:
    """Command line for the instructor's flow."""
    parser = argparse.ArgumentParser(
        prog="python -m autograder.cli.instructor",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "step",
        choices=[
            "init",
            "release",
            "collect",
            "autograde",
            "feedback",
            "export",
            "report",
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
        "--roster",
        type=Path,
        help="export: student,name,canvas_id,...,email CSV (default: ROOT/roster.csv if present); "
        "canvas.csv and moodle.csv are written beside --to",
    )
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
    parser.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="report: list pairs of hand-ins at least this alike (0 to 1; default 0.8)",
    )
    server = parser.add_argument_group("tokens and serve (the submission server)")
    server.add_argument("--instructor", action="append", default=[], help="tokens: an instructor")
    server.add_argument(
        "--submit-toml",
        type=Path,
        help="tokens: write each student's submit.toml (token and --server) into DIR/<student>/",
    )
    server.add_argument("--server", help="tokens: the server's address students use (https://...)")
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
        help="serve, tokens, report: SQLAlchemy URL (default: $DATABASE_URL or COURSE/submissions.db)",
    )
    args = parser.parse_intermixed_args(argv)
    return STEPS[args.step](args, parser)


def _init(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Create the course directory and its nbgrader_config.py (an existing one is kept as it is)."""
    try:
        root = init_course(args.root)
    except ValueError as error:
        parser.error(str(error))
    print(f"course directory {root}: set DEADLINES in {root / 'nbgrader_config.py'}")
    return 0


def _release(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Copy the source notebooks in and generate the students' versions."""
    try:
        released = release(args.root, args.chapters or chapters())
    except ValueError as error:  # the course's nbgrader_config.py: a deadline, or not ours
        parser.error(str(error))
    for path in released:
        print(f"released {path}")
    return 0


def _collect(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Take in a folder of hand-ins, or each student's latest on-time submission from the server."""
    if args.from_server:
        if args.chapters:
            parser.error("collect --from-server takes no folder: it reads the server's database")
        from autograder.server.handin import collect_from_server

        from_server = collect_from_server(args.root, args.db)
        collected = from_server.collected
        for student, chapter, submission in from_server.late:
            print(f"late {printable(student)} {printable(chapter)}: submission {submission}")
    else:
        if len(args.chapters) != 1 or not Path(args.chapters[0]).is_dir():
            parser.error("collect takes one folder: SUBMISSIONS/<student>/<chapter>.ipynb")
        collected = collect(args.root, Path(args.chapters[0]))
    for student, chapter in collected.notebooks:
        print(f"collected {printable(student)} {printable(chapter)}")
    for refusal in collected.refused:  # that hand-in (or student) alone; see collected.json
        print(printable(refusal), file=sys.stderr)
    return 0


def _autograde(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Grade every new or changed submission in the sandbox; print what was flagged."""
    root = args.root
    if args.no_sandbox:
        print("WARNING: --no-sandbox: student code runs unconfined, as you", file=sys.stderr)
    try:
        run = autograde(
            root,
            args.chapters or submitted_chapters(root),
            not args.no_sandbox,
            scheduler=args.scheduler,
            seed=args.seed,
            force=args.force,
            workers=args.workers,
        )
    except bwrap.SandboxUnavailable as error:
        print(
            f"refusing to grade: {error}; or pass --no-sandbox to accept the risk",
            file=sys.stderr,
        )
        return 2
    except GradingIncomplete as error:
        print(f"ERROR: {printable(error, limit=5000)}", file=sys.stderr)
        return 1
    print(
        f"graded {len(run.graded)} submissions in {run.seconds:.1f} s "
        f"({run.skipped} unchanged, not graded again)"
    )
    for student, chapters_flagged in sorted(run.flags.items()):
        for chapter, reasons in chapters_flagged.items():
            shown = "; ".join(map(printable, reasons))
            print(f"FLAGGED {printable(student)} {printable(chapter)}: {shown}")
    return 0


def _feedback(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Write each graded student's feedback pages."""
    feedback(args.root, args.chapters or submitted_chapters(args.root))
    print(f"feedback in {args.root / 'feedback'}")
    return 0


def _export(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Write the grades as CSV; with a roster, also in the import formats of Canvas and Moodle."""
    print(f"exported {export(args.root, args.to)}")
    roster = args.roster or (args.root / "roster.csv")
    if args.roster is None and not roster.is_file():
        print(f"no roster ({roster}): no Canvas or Moodle file (see README, make export)")
        return 0
    try:
        lms = export_lms(args.root, roster, args.to.parent, released_chapters(args.root))
    except ValueError as error:
        print(f"ERROR: {printable(error, limit=5000)}", file=sys.stderr)
        return 2
    for path in lms.files:
        print(f"exported {path}")
    if lms.not_in_roster:
        print("NOT IN THE ROSTER (in grades.csv, in no LMS file): " + ", ".join(lms.not_in_roster))
    if lms.nothing_handed_in:
        print("NOTHING HANDED IN (empty grades): " + ", ".join(lms.nothing_handed_in))
    for chapter, students in lms.written_ungraded.items():
        if students:
            print(f"WRITTEN ANSWERS NOT GRADED YET in {chapter} (empty): " + ", ".join(students))
    return 0


def _report(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Write COURSE/report.html and COURSE/diagnoses.csv; with the server's database, first and
    latest submissions beside the course's grading."""
    from autograder.course.report import THRESHOLD, write_report
    from autograder.course.report.stats import first_and_last
    from autograder.server.class_report import graded_kept
    from autograder.server.db import FILE, database_url, open_database

    threshold = THRESHOLD if args.threshold is None else args.threshold
    if not 0 < threshold <= 1:
        parser.error(f"--threshold must be in (0, 1], got {threshold}")
    first = last = None
    if args.db or (args.root / FILE).is_file():
        with open_database(database_url(args.root, args.db))() as session:
            first, last = first_and_last(graded_kept(session))
    try:
        page, table = write_report(args.root, first, last, threshold)
    except ValueError as error:
        print(f"ERROR: {error}", file=sys.stderr)
        return 1
    print(f"wrote {page} and {table}")
    return 0


def _chapters(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Regenerate chapters/ (the released notebooks) from solutions/."""
    for path in student_notebooks(REPO / "chapters"):
        print(f"wrote {path.relative_to(REPO)}")
    return 0


def _tokens(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Issue the server's tokens: one `name,token` line each."""
    from autograder.cli.server import tokens

    return tokens(
        args.root, args.chapters, args.instructor, args.db, parser, args.submit_toml, args.server
    )


def _serve(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run the submission server."""
    from autograder.cli.server import serve

    return serve(args)


STEPS = {
    "init": _init,
    "release": _release,
    "collect": _collect,
    "autograde": _autograde,
    "feedback": _feedback,
    "export": _export,
    "report": _report,
    "chapters": _chapters,
    "tokens": _tokens,
    "serve": _serve,
}


if __name__ == "__main__":
    sys.exit(main())
