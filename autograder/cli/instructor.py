"""The instructor's flow on a real nbgrader course directory: release, collect, autograde, feedback, export.

python -m autograder.cli.instructor init      [--root course]   # the course directory, DEADLINES to fill in
python -m autograder.cli.instructor release   [--root course] [CHAPTER ...]
python -m autograder.cli.instructor collect   [--root course] SUBMISSIONS   # SUBMISSIONS/<student>/<chapter>.ipynb
python -m autograder.cli.instructor collect   [--root course] --from-server [--db URL]   # by DEADLINES
python -m autograder.cli.instructor autograde [--root course] [--no-sandbox] [--scheduler tcp://host:8786]
                                              [--workers N] [--seed N] [--force] [CHAPTER ...]
python -m autograder.cli.instructor feedback  [--root course] [CHAPTER ...]
python -m autograder.cli.instructor export    [--root course] [--to grades.csv] [--roster roster.csv]
python -m autograder.cli.instructor report    [--root course] [--db URL] [--threshold 0.8]   # report.html, diagnoses.csv
python -m autograder.cli.instructor chapters   # chapters/ from solutions/
python -m autograder.cli.instructor tokens    [--root course] [--instructor NAME] [--db URL] STUDENT ...   # name,token lines
                                              [--submit-toml DIR --server URL]   # or DIR/<student>/submit.toml
python -m autograder.cli.instructor serve     [--root course] [--host 127.0.0.1] [--port 8000] [--per-hour 6]
                                              [--max-bytes 10000000] [--scheduler ADDR] [--workers N] [--db URL] ...

`python -m autograder.cli.instructor STEP --help` lists that step's options.
"""

import argparse
import functools
import sys
from collections.abc import Callable
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

Step = Callable[[argparse.Namespace, argparse.ArgumentParser], int]


class _StepParser(argparse.ArgumentParser):
    """A step's parser: positionals may come before, between or after its options (as they always
    could); an option it does not know is refused with its own usage line (exit 2)."""

    _mixing = False

    def parse_known_args(
        self, args: list[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """Parse as `parse_intermixed_args` (whose passes come back here, and are let through)."""
        if self._mixing:
            return super().parse_known_args(args, namespace)
        self._mixing = True
        try:
            namespace, unknown = self.parse_known_intermixed_args(args, namespace)
        finally:
            self._mixing = False
        if unknown:
            self.error(f"unrecognized arguments: {' '.join(unknown)}")
        return namespace, unknown


def _shared() -> tuple[argparse.ArgumentParser, ...]:
    """The options several steps share: the course, the chapters, the server's database, the cluster."""
    course = argparse.ArgumentParser(add_help=False)
    course.add_argument("--root", type=Path, default=REPO / "course", help="course directory")
    chosen = argparse.ArgumentParser(add_help=False)
    chosen.add_argument("chapters", nargs="*", help="chapters (default: all)")
    database = argparse.ArgumentParser(add_help=False)
    database.add_argument(
        "--db",
        help="the server's SQLAlchemy URL (default: $DATABASE_URL or COURSE/submissions.db)",
    )
    cluster = argparse.ArgumentParser(add_help=False)
    cluster.add_argument(
        "--scheduler",
        help="a running Dask scheduler (tcp://host:port); default: a local cluster, one worker per core",
    )
    cluster.add_argument(
        "--workers", type=int, help="local cluster: worker processes (default: cores)"
    )
    return course, chosen, database, cluster


def _parser() -> argparse.ArgumentParser:
    """The command line: one sub-command per step, each with its own options and --help."""
    parser = argparse.ArgumentParser(
        prog="python -m autograder.cli.instructor",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    steps = parser.add_subparsers(dest="step", required=True, parser_class=_StepParser)
    course, chosen, database, cluster = _shared()

    def step(
        name: str, run: Step, summary: str, *parents: argparse.ArgumentParser
    ) -> argparse.ArgumentParser:
        sub = steps.add_parser(name, help=summary, description=summary, parents=list(parents))
        sub.set_defaults(run=functools.partial(run, parser=sub))
        return sub

    step("init", _init, "create the course directory and its nbgrader_config.py", course)
    step("release", _release, "generate the students' notebooks of CHAPTERs", course, chosen)
    collecting = step(
        "collect",
        _collect,
        "take in SUBMISSIONS/<student>/<chapter>.ipynb, or the server's latest by the deadlines",
        course,
        database,
    )
    collecting.add_argument("submissions", nargs="?", help="the folder of hand-ins")
    collecting.add_argument(
        "--from-server",
        action="store_true",
        help="each student's latest submission by the deadline, from the server's --db",
    )
    grading = step(
        "autograde",
        _autograde,
        "grade every new or changed submission in the OS sandbox",
        course,
        chosen,
        cluster,
    )
    grading.add_argument(
        "--no-sandbox",
        action="store_true",
        help="grade without the OS sandbox (unsafe; written into flags and grades.csv)",
    )
    grading.add_argument("--seed", type=int, help="seed of the hidden cases (default: a new one)")
    grading.add_argument(
        "--force", action="store_true", help="grade every submission again, changed or not"
    )
    step("feedback", _feedback, "write each graded student's feedback pages", course, chosen)
    exporting = step(
        "export", _export, "write grades.csv, and the Canvas and Moodle files with a roster", course
    )
    exporting.add_argument("--to", type=Path, default=Path("grades.csv"), help="CSV path")
    exporting.add_argument(
        "--roster",
        type=Path,
        help="student,name,canvas_id,...,email CSV (default: ROOT/roster.csv if present); "
        "canvas.csv and moodle.csv are written beside --to",
    )
    reporting = step(
        "report", _report, "write COURSE/report.html and COURSE/diagnoses.csv", course, database
    )
    reporting.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="list pairs of hand-ins at least this alike (0 to 1; default 0.8)",
    )
    step("chapters", _chapters, "regenerate chapters/ (the released notebooks) from solutions/")
    issuing = step(
        "tokens", _tokens, "issue the server's tokens: one name,token line each", course, database
    )
    issuing.add_argument("students", nargs="*", help="the students to issue a token to")
    issuing.add_argument("--instructor", action="append", default=[], help="an instructor")
    issuing.add_argument(
        "--submit-toml",
        type=Path,
        help="write each student's submit.toml (token and --server) into DIR/<student>/",
    )
    issuing.add_argument("--server", help="the server's address students use (https://...)")
    serving = step("serve", _serve, "run the submission server", course, database, cluster)
    serving.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serving.add_argument("--port", type=int, default=8000, help="port")
    serving.add_argument(
        "--per-hour", type=int, default=6, help="submissions per student and chapter an hour"
    )
    serving.add_argument(
        "--max-bytes", type=int, default=10_000_000, help="the largest notebook accepted"
    )
    serving.add_argument(
        "--queue", type=int, default=500, help="submissions waiting at most (then 503)"
    )
    serving.add_argument(
        "--waiting",
        type=int,
        default=3,
        help="one student's submissions waiting to be graded at most (then 409)",
    )
    serving.add_argument(
        "--body-seconds",
        type=float,
        default=120.0,
        help="an upload not received in full within this time gets 408 (default 120)",
    )
    serving.add_argument(
        "--refused-per-hour",
        type=int,
        default=20,
        help="a student's uploads refused (408, 413, 422) or cut off, an hour; then 429",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Command line for the instructor's flow: run one step; return the exit status."""
    args = _parser().parse_args(argv)
    return args.run(args)


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
        if args.submissions:
            parser.error("collect --from-server takes no folder: it reads the server's database")
        from autograder.server.handin import collect_from_server

        from_server = collect_from_server(args.root, args.db)
        collected = from_server.collected
        for student, chapter, submission in from_server.late:
            print(f"late {printable(student)} {printable(chapter)}: submission {submission}")
    else:
        if args.submissions is None or not Path(args.submissions).is_dir():
            parser.error("collect takes one folder: SUBMISSIONS/<student>/<chapter>.ipynb")
        collected = collect(args.root, Path(args.submissions))
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
        args.root, args.students, args.instructor, args.db, parser, args.submit_toml, args.server
    )


def _serve(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run the submission server."""
    from autograder.cli.server import serve

    return serve(args)


if __name__ == "__main__":
    sys.exit(main())
