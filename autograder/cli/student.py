"""Command line: `python -m autograder list | check EXERCISE FILE.py... | grade NOTEBOOK.ipynb`."""

import argparse
import json
import sys
from pathlib import Path

from autograder.judge.exercises import EXERCISES
from autograder.judge.report import (
    as_json,
    html_report,
    loading_notes,
    loading_report,
    score_line,
    scores,
    text_report,
)
from autograder.judge.runner import check_each, check_source, grade_notebook
from autograder.judge.session import new_seed
from autograder.sandbox.host import bwrap


def self_grade_sandbox() -> bool:
    """Whether a student's own grading can use the OS sandbox; says so on stderr when it cannot."""
    if bwrap.available():
        return True
    print(
        "note: the OS sandbox is off (bubblewrap is not installed); scores are the same either way",
        file=sys.stderr,
    )
    return False


SEED_HELP = "seed of the hidden cases, to replay a run (default: a new one, printed in the report)"


def _list(args: argparse.Namespace) -> int:
    rows = [
        {
            "exercise": e.name,
            "chapter": e.chapter,
            "points": e.points,
            "extra": e.extra,
            "kind": e.kind,
        }
        for e in EXERCISES.values()
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'chapter':<22} {'exercise':<30} {'kind':<10} points")
    for row in rows:
        extra = "  (challenge: extra credit)" if row["extra"] else ""
        print(
            f"{row['chapter']:<22} {row['exercise']:<30} {row['kind']:<10} {row['points']}{extra}"
        )
    print(f"{'total':<64} {sum(row['points'] for row in rows if not row['extra'])}")
    print(f"{'extra credit (challenges)':<64} {sum(row['points'] for row in rows if row['extra'])}")
    return 0


def _check(args: argparse.Namespace) -> int:
    if args.exercise not in EXERCISES:
        print(f"unknown exercise {args.exercise!r}; known: {', '.join(EXERCISES)}", file=sys.stderr)
        return 2
    paths = [Path(file) for file in args.file]
    for path in paths:
        if not path.is_file():
            print(f"no such file: {path}", file=sys.stderr)
            return 2
    exercise, sandboxed = EXERCISES[args.exercise], self_grade_sandbox()
    sources = [[path.read_text(encoding="utf-8")] for path in paths]
    if len(paths) == 1:
        report = check_source(exercise, sources[0], seed=args.seed, sandboxed=sandboxed)
        print(json.dumps(as_json(report), indent=2) if args.json else text_report(report))
        return 0 if report.passed else 1
    # several files of one author (an instructor's implementations, not several students'): one
    # grading process, each file in a copy of its own, each with its own seed unless one is given
    seeds = [new_seed() if args.seed is None else args.seed for _ in paths]
    reports = check_each(exercise, sources, seeds, sandboxed=sandboxed)
    if args.json:
        rows = [{"file": str(p), "report": as_json(r)} for p, r in zip(paths, reports, strict=True)]
        print(json.dumps(rows, indent=2))
    else:
        for path, report in zip(paths, reports, strict=True):
            print(f"== {path}\n{text_report(report)}\n")
        print(f"{sum(r.passed for r in reports)} of {len(reports)} files pass every check")
    return 0 if all(report.passed for report in reports) else 1


def _grade(args: argparse.Namespace) -> int:
    try:
        reports = grade_notebook(
            args.notebook, args.chapter, seed=args.seed, sandboxed=self_grade_sandbox()
        )
    except (ValueError, FileNotFoundError) as error:
        print(error, file=sys.stderr)
        return 2
    notebook = Path(args.notebook)
    feedback = Path(args.html) if args.html else notebook.with_suffix(".feedback.html")
    feedback.write_text(html_report(f"Feedback: {notebook.name}", reports), encoding="utf-8")
    earned, possible, extra, extra_possible = scores(reports)
    if args.json:
        print(
            json.dumps(
                {
                    "notebook": str(notebook),
                    "seed": reports[0].seed,
                    "score": earned,
                    "max_score": possible,
                    "extra_credit": extra,
                    "max_extra_credit": extra_possible,
                    "exercises": {r.exercise: r.earned for r in reports if not r.extra},
                    "challenges": {r.exercise: r.earned for r in reports if r.extra},
                    "loading": loading_notes(reports),
                    "reports": [as_json(r) for r in reports],
                    "feedback": str(feedback),
                },
                indent=2,
            )
        )
    else:
        said = [loading_report(reports), *(text_report(r, loading=False) for r in reports)]
        print("\n\n".join(filter(None, said)))
        print(
            f"\n{score_line(reports)}   hidden cases: seed {reports[0].seed}   feedback: {feedback}"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run one sub-command; return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m autograder", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("list", help="exercises, chapters, points")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(run=_list)
    check = commands.add_parser(
        "check",
        help="run every check of one exercise on a function in a .py file (or several of one author)",
    )
    check.add_argument("exercise")
    check.add_argument("file", nargs="+")
    check.add_argument("--json", action="store_true")
    check.add_argument("--seed", type=int, help=SEED_HELP)
    check.set_defaults(run=_check)
    grade = commands.add_parser(
        "grade", help="grade a chapter notebook with the full hidden checks"
    )
    grade.add_argument("notebook")
    grade.add_argument(
        "--chapter", help="chapter id, e.g. 01_bigram_counting (default: the file name)"
    )
    grade.add_argument(
        "--html", help="where to write the feedback page (default: NOTEBOOK.feedback.html)"
    )
    grade.add_argument("--json", action="store_true")
    grade.add_argument("--seed", type=int, help=SEED_HELP)
    grade.set_defaults(run=_grade)
    args = parser.parse_args(argv)
    return args.run(args)
