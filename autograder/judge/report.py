"""Rendering verdicts: a text report for the terminal and notebook, an HTML page, and JSON."""

import html

from autograder.judge.verdicts import CheckResult, ExerciseReport, Flag

EXTRA = "challenge, extra credit"
INSTRUCTOR = "graded by your instructor"


def scores(reports: list[ExerciseReport]) -> tuple[int, int, int, int]:
    """(earned, possible) of the regular exercises, then (earned, possible) of the challenges."""
    regular = [report for report in reports if not report.extra]
    extra = [report for report in reports if report.extra]
    return (
        sum(r.earned for r in regular),
        sum(r.points for r in regular),
        sum(r.earned for r in extra),
        sum(r.points for r in extra),
    )


def points(value: float) -> str:
    """A number of points as 7 or 6.5."""
    return f"{value:g}"


def score_text(
    earned: float,
    possible: float,
    extra: float = 0,
    extra_possible: float = 0,
    written: list[tuple[float | None, float]] | None = None,
) -> str:
    """A chapter's score as every page and the client say it: the autograded points out of the
    autograded total, then the challenges' extra credit, then the written answers (each: the points
    the instructor gave, None while not graded, and its points), which the instructor grades.

    e.g. `Score: 10/10 + extra credit 3/3; written answers: graded by your instructor (2 points, pending)`
    """
    line = f"Score: {points(earned)}/{points(possible)}"
    if extra_possible:
        line += f" + extra credit {points(extra)}/{points(extra_possible)}"
    if written:
        total = sum(top for _, top in written)
        if any(given is None for given, _ in written):
            line += f"; written answers: {INSTRUCTOR} ({points(total)} points, pending)"
        else:
            given = sum(given for given, _ in written)
            line += f"; written answers: {points(given)}/{points(total)}, {INSTRUCTOR}"
    return line


def score_line(reports: list[ExerciseReport]) -> str:
    """The score line of a chapter's reports, with the extra credit beside it when it has a challenge."""
    return score_text(*scores(reports))


def loading_notes(reports: list[ExerciseReport]) -> list[str]:
    """The notes on the student's cells that failed while loading, each once for the submission
    (every exercise graded by one load carries the same ones), in order."""
    return list(dict.fromkeys(note for report in reports for note in report.loading))


def failure_groups(results: list[CheckResult]) -> list[tuple[list[str], str]]:
    """The failed checks by their hint, in the order of each hint's first failure: the names of
    the checks one cause broke, and that cause once."""
    groups: dict[str, list[str]] = {}
    for result in results:
        if not result.passed:
            groups.setdefault(result.hint, []).append(result.name)
    return [(names, hint) for hint, names in groups.items()]


def in_order(results: list[CheckResult]) -> list[tuple[str, str | None]]:
    """The checks as a report lists them, in order: (name, None) for one that passed, and at each
    cause's first failure (the names of the checks it broke, its hint), that cause once."""
    groups = {hint: names for names, hint in failure_groups(results)}
    rows: list[tuple[str, str | None]] = []
    for result in results:
        if result.passed:
            rows.append((result.name, None))
        elif result.hint in groups:
            rows.append((failed_names(groups.pop(result.hint)), result.hint))
    return rows


def failed_names(names: list[str]) -> str:
    """The failed checks of one cause: its one name, or how many and which."""
    return names[0] if len(names) == 1 else f"{len(names)} checks, one cause ({' | '.join(names)})"


def hints_line(results: list[CheckResult]) -> str:
    """Every cause of failure once, with the checks it broke: `a: hint; 2 checks, one cause (b | c): hint`."""
    return "; ".join(f"{failed_names(names)}: {hint}" for names, hint in failure_groups(results))


def text_report(report: ExerciseReport, loading: bool = True) -> str:
    """One line per check that passed, and each cause of failure once with the checks it broke,
    under a header with the points earned (and the notes on loading unless `loading` is False:
    a whole submission's report states those once, `loading_notes`)."""
    passed = sum(result.passed for result in report.results)
    kind = f" ({EXTRA})" if report.extra else ""
    lines = [
        f"{report.exercise}{kind}: {report.earned}/{report.points} points ({passed}/{len(report.results)} checks passed)"
    ]
    lines += [f"  note: {note}" for note in (report.loading if loading else []) + report.notes]
    if report.seed is not None and not report.passed:
        lines.append(f"  hidden cases drawn from seed {report.seed}")
    for name, hint in in_order(report.results):
        lines.append(f"  PASS {name}" if hint is None else f"  FAIL {name}\n       hint: {hint}")
    return "\n".join(lines)


def loading_report(reports: list[ExerciseReport]) -> str:
    """The notes on the submission's cells that failed while loading, stated once ('' when none)."""
    notes = loading_notes(reports)
    if not notes:
        return ""
    head = "Your notebook's own cells (this concerns every exercise; said once, here):"
    return "\n".join([head, *(f"  note: {note}" for note in notes)])


def as_json(report: ExerciseReport) -> dict:
    """The report as JSON-able data."""
    return {
        "exercise": report.exercise,
        "points": report.points,
        "earned": report.earned,
        "extra": report.extra,
        "passed": report.passed,
        "seed": report.seed,
        "notes": report.notes,
        "loading": report.loading,
        "flags": [str(flag) for flag in report.flags],
        "checks": [{"name": r.name, "passed": r.passed, "hint": r.hint} for r in report.results],
    }


def from_json(data: dict) -> ExerciseReport:
    """The report `as_json` gave, read back; ValueError when `data` is not one."""
    try:
        return ExerciseReport(
            str(data["exercise"]),
            int(data["points"]),
            [
                CheckResult(str(c["name"]), bool(c["passed"]), str(c["hint"]))
                for c in data["checks"]
            ],
            notes=[str(note) for note in data["notes"]],
            loading=[str(note) for note in data.get("loading", [])],
            flags=[Flag(flag) for flag in data["flags"]],
            seed=None if data["seed"] is None else int(data["seed"]),
            extra=bool(data["extra"]),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"not a trusted report as as_json writes it ({error!r})") from None


def html_report(title: str, reports: list[ExerciseReport]) -> str:
    """A self-contained feedback page: points per exercise, every check, each cause of failure
    once, the notes on loading once; never test source."""
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        f"<title>{html.escape(title)}</title>",
        "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
        ".pass{color:#1a7f37}.fail{color:#cf222e}li{margin:.3em 0}</style></head><body>",
        f"<h1>{html.escape(title)}</h1><p><strong>{html.escape(score_line(reports))}</strong></p>",
    ]
    seeds = sorted({report.seed for report in reports if report.seed is not None})
    if seeds:
        parts.append(f"<p>Hidden cases drawn from seed {', '.join(map(str, seeds))}.</p>")
    if notes := loading_notes(reports):
        parts.append("<p>Your notebook's own cells (this concerns every exercise):</p><ul>")
        parts += [f"<li><em>{html.escape(note)}</em></li>" for note in notes]
        parts.append("</ul>")
    for report in reports:
        kind = f" ({EXTRA})" if report.extra else ""
        parts.append(
            f"<h2>{html.escape(report.exercise)}{kind}: {report.earned} / {report.points}</h2><ul>"
        )
        parts += [f"<li><em>{html.escape(note)}</em></li>" for note in report.notes]
        for name, hint in in_order(report.results):
            css, mark = ("pass", "&#10003;") if hint is None else ("fail", "&#10007;")
            said = "" if hint is None else f"<br>hint: {html.escape(hint)}"
            parts.append(f"<li class='{css}'>{mark} {html.escape(name)}{said}</li>")
        parts.append("</ul>")
    parts.append("</body></html>")
    return "\n".join(parts)
