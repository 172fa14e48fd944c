"""Rendering verdicts: a text report for the terminal and notebook, an HTML page, and JSON."""

import html

from autograder.judge.verdicts import CheckResult, ExerciseReport, Flag

EXTRA = "challenge, extra credit"


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


def score_line(reports: list[ExerciseReport]) -> str:
    """The score line of a chapter, with the extra credit beside it when it has a challenge."""
    earned, possible, extra, extra_possible = scores(reports)
    line = f"Score: {earned}/{possible}"
    return line + (f" + extra credit {extra}/{extra_possible}" if extra_possible else "")


def text_report(report: ExerciseReport) -> str:
    """One line per check with its hint, under a header with the points earned."""
    passed = sum(result.passed for result in report.results)
    kind = f" ({EXTRA})" if report.extra else ""
    lines = [
        f"{report.exercise}{kind}: {report.earned}/{report.points} points ({passed}/{len(report.results)} checks passed)"
    ]
    lines += [f"  note: {note}" for note in report.notes]
    if report.seed is not None and not report.passed:
        lines.append(f"  hidden cases drawn from seed {report.seed}")
    for result in report.results:
        mark = "PASS" if result.passed else "FAIL"
        lines.append(
            f"  {mark} {result.name}" + ("" if result.passed else f"\n       hint: {result.hint}")
        )
    return "\n".join(lines)


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
            [str(note) for note in data["notes"]],
            [Flag(flag) for flag in data["flags"]],
            None if data["seed"] is None else int(data["seed"]),
            bool(data["extra"]),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"not a trusted report as as_json writes it ({error!r})") from None


def html_report(title: str, reports: list[ExerciseReport]) -> str:
    """A self-contained feedback page: points per exercise, every check, hints; never test source."""
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
    for report in reports:
        kind = f" ({EXTRA})" if report.extra else ""
        parts.append(
            f"<h2>{html.escape(report.exercise)}{kind}: {report.earned} / {report.points}</h2><ul>"
        )
        parts += [f"<li><em>{html.escape(note)}</em></li>" for note in report.notes]
        for result in report.results:
            css, mark = ("pass", "&#10003;") if result.passed else ("fail", "&#10007;")
            hint = "" if result.passed else f"<br>hint: {html.escape(result.hint)}"
            parts.append(f"<li class='{css}'>{mark} {html.escape(result.name)}{hint}</li>")
        parts.append("</ul>")
    parts.append("</body></html>")
    return "\n".join(parts)
