"""The class report as one HTML page and a CSV, made like the feedback pages.

Everything on the page that comes from a student (names, the hints that quote what their code
raised, their code in the similar pairs) is escaped text; the page has no script and carries the
feedback pages' Content-Security-Policy (`page_policy.policy` with no script allowed), so nothing
in it runs even if something slipped through. The pictures are PNGs drawn with matplotlib and
embedded as data (the policy allows images from `data:` only).
"""

import base64
import csv
import html
import io
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from autograder.course.page_policy import policy
from autograder.course.printable import printable
from autograder.course.report.similarity import MAX_CHARS, MAX_COMPARED, Pair, Part
from autograder.course.report.stats import (
    ExerciseStats,
    Kept,
    Row,
    chapter_scores,
    diagnoses,
    diagnosis_rows,
    exercise_stats,
)
from autograder.judge.exercises import chapter_exercises

STYLE = (
    "body{font-family:sans-serif;max-width:75em;margin:1em auto;padding:0 1em}"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .5em;"
    "vertical-align:top;text-align:left}td.n{text-align:right}"
    ".pair{display:grid;grid-template-columns:1fr 1fr;gap:1em}"
    ".pair pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fa;padding:.5em;"
    "font-size:85%}mark{background:#ffd33d}img{max-width:100%}"
)
SIDE_BY_SIDE = 20  # pairs a chapter shown with their code side by side; the rest in a table
COLUMNS = [
    "chapter",
    "exercise",
    "diagnosis",
    "checks",
    "students",
    "share",
    "first_submission",
    "last_submission",
]


def _e(value: object) -> str:
    return html.escape(printable(value), quote=True)


def _png(figure: object) -> str:
    """A matplotlib figure as an <img> with its PNG inline."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90, bbox_inches="tight")
    data = base64.b64encode(buffer.getvalue()).decode()
    return f"<img alt='' src='data:image/png;base64,{data}'>"


def _figure(width: float, height: float) -> tuple[object, object]:
    """A figure and its axes, made without pyplot (no global state: the server draws in threads)."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height))
    return figure, figure.subplots()


def ranked_picture(stats: list[ExerciseStats]) -> str:
    """The regular exercises ranked by points the class lost, as horizontal bars."""
    ranked = sorted((s for s in stats if not s.extra and s.lost), key=lambda s: s.lost)
    if not ranked:
        return "<p>No points lost.</p>"
    figure, axes = _figure(7, 0.3 * len(ranked) + 1)
    axes.barh([s.exercise for s in ranked], [s.lost for s in ranked], color="#cf222e")
    axes.set_xlabel("points lost by the class")
    return _png(figure)


def score_picture(chapter: str, scores: list[int]) -> str:
    """The distribution of one chapter's scores over the class."""
    possible = sum(e.points for e in chapter_exercises(chapter) if not e.extra)
    figure, axes = _figure(5, 2.2)
    axes.hist(scores, bins=range(possible + 2), align="left", rwidth=0.8, color="#0969da")
    axes.set_xlabel(f"{chapter}: score out of {possible}")
    axes.set_ylabel("students")
    axes.set_xticks(range(possible + 1))
    return _png(figure)


def _table(header: list[str], rows: Iterable[list[str]]) -> str:
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join("<tr>" + "".join(row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _cell(value: object, number: bool = False) -> str:
    return f"<td class='n'>{_e(value)}</td>" if number else f"<td>{_e(value)}</td>"


def _change(row: Row) -> str:
    return "" if row.first is None else f"{row.first} &rarr; {row.last}"


def _chapter(chapter: str, scores: list[int], stats: list[ExerciseStats], rows: list[Row]) -> str:
    parts = [f"<h2 id='chapter-{_e(chapter)}'>{_e(chapter)}</h2>", score_picture(chapter, scores)]
    parts.append(
        _table(
            ["exercise", "points", "earned by", "share"],
            (
                [
                    _cell(s.exercise + (" (challenge)" if s.extra else "")),
                    _cell(s.points, True),
                    _cell(f"{s.earned} of {s.graded}", True),
                    _cell(f"{s.earned / s.graded:.0%}" if s.graded else "", True),
                ]
                for s in stats
            ),
        )
    )
    server = any(row.first is not None for row in rows)
    header = [
        "exercise",
        "diagnosis",
        "checks that failed with it",
        "students",
        "share of the class",
    ]
    header += ["first &rarr; latest submission on the server"] if server else []
    parts.append("<h3>What stopped students</h3>")
    parts.append(
        _table(
            header,
            (
                [
                    _cell(r.exercise),
                    _cell(r.diagnosis),
                    _cell(r.checks),
                    _cell(r.students, True),
                    _cell(f"{r.share:.0%}", True),
                    *([f"<td class='n'>{_change(r)}</td>"] if server else []),
                ]
                for r in rows
            ),
        )
        if rows
        else "<p>Every student earned every exercise.</p>"
    )
    return "\n".join(parts)


def _code(runs: list[tuple[str, bool]]) -> str:
    return "".join(
        f"<mark>{html.escape(text)}</mark>" if matching else html.escape(text)
        for text, matching in runs
    )


def pairs_section(parts: list[Part], compared: bool) -> str:
    """The pairs that look alike, the matching code marked side by side."""
    pairs = [pair for part in parts for pair in part.pairs]
    shown = ["<h2 id='similar'>Hand-ins that look alike</h2>"]
    if not compared:
        return shown[0] + "<p>Not compared here: <code>make report</code> compares hand-ins.</p>"
    shown.append(
        "<p>A flag to look at, never a change of score: the share of each one's code (names, "
        "strings and comments aside; the released notebook's code left out) found in the other.</p>"
    )
    if not pairs:
        shown.append("<p>No pair looks alike.</p>")
    for part in parts:
        if part.not_compared:
            shown.append(
                f"<p>{_e(part.chapter)}, {_e(part.part)}: {part.not_compared} more pairs share "
                f"many fingerprints; only the {MAX_COMPARED} sharing most were compared in full.</p>"
            )
        if part.cut:
            cells = ", ".join(
                f"{_e(student)} ({length:,} characters)" for student, length in part.cut
            )
            shown.append(
                f"<p class='cut'>{_e(part.chapter)}, {_e(part.part)}: compared only in part "
                f"(a student's cells are compared on {MAX_CHARS:,} characters a chapter, shared "
                f"among them): {cells}.</p>"
            )
    by_chapter: dict[str, list[Pair]] = defaultdict(list)
    for pair in pairs:
        by_chapter[pair.chapter].append(pair)
    for chapter, theirs in sorted(by_chapter.items()):
        theirs.sort(key=lambda p: -p.similarity)
        for pair in theirs[:SIDE_BY_SIDE]:
            shown.append(
                f"<h3 class='pair-title'>{_e(pair.chapter)}, {_e(pair.part)}: "
                f"<span class='students'>{_e(pair.first)}</span> and "
                f"<span class='students'>{_e(pair.second)}</span>, {pair.similarity:.0%} alike</h3>"
                f"<div class='pair'><pre>{_code(pair.marked[0])}</pre>"
                f"<pre>{_code(pair.marked[1])}</pre></div>"
            )
        if len(theirs) > SIDE_BY_SIDE:
            shown.append(f"<p>{_e(chapter)}: {len(theirs) - SIDE_BY_SIDE} more pairs.</p>")
            shown.append(
                _table(
                    ["part", "students", "alike"],
                    (
                        [
                            _cell(p.part),
                            _cell(f"{p.first}, {p.second}"),
                            _cell(f"{p.similarity:.0%}"),
                        ]
                        for p in theirs[SIDE_BY_SIDE:]
                    ),
                )
            )
    return "\n".join(shown)


def _student(number: int, student: str, theirs: list[Kept]) -> str:
    parts = [f"<h3 id='student-{number}'>{_e(student)}</h3>"]
    rows = []
    for one in sorted(theirs, key=lambda k: k.chapter):
        earned = sum(r.earned for r in one.reports or [] if not r.extra)
        possible = sum(e.points for e in chapter_exercises(one.chapter) if not e.extra)
        stopped = [
            f"{exercise.name}: {diagnosis}"
            for exercise in chapter_exercises(one.chapter)
            for diagnosis in sorted(diagnoses(one, exercise.name))
        ]
        rows.append(
            [
                _cell(one.chapter),
                _cell(f"{earned}/{possible}", True),
                "<td>" + "<br>".join(_e(line) for line in stopped + one.flags) + "</td>",
            ]
        )
    return "\n".join([*parts, _table(["chapter", "score", "what stopped them, flags"], rows)])


def render(
    kept: list[Kept],
    pairs: list[Part],
    title: str,
    first: list[Kept] | None = None,
    last: list[Kept] | None = None,
    compared: bool = True,
) -> str:
    """The whole report page: ranked exercises, each chapter, the similar pairs, each student."""
    rows = diagnosis_rows(kept, first, last)
    stats = exercise_stats(kept)
    scores = chapter_scores(kept)
    students: dict[str, list[Kept]] = defaultdict(list)
    for one in kept:
        students[one.student].append(one)
    names = sorted(students)
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        f'<meta http-equiv="Content-Security-Policy" content="{policy([], [])}">',
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{_e(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f"<p>{len(names)} students, {len(kept)} graded submissions, chapters: "
        + ", ".join(f"<a href='#chapter-{_e(c)}'>{_e(c)}</a>" for c in scores)
        + ". <a href='#similar'>Hand-ins that look alike</a>, <a href='#students'>students</a>.</p>",
        "<h2>Exercises ranked by points lost</h2>",
        ranked_picture(stats),
        _table(
            ["exercise", "chapter", "points lost"],
            (
                [_cell(s.exercise), _cell(s.chapter), _cell(s.lost, True)]
                for s in sorted(stats, key=lambda s: -s.lost)
                if not s.extra and s.lost
            ),
        ),
    ]
    for chapter, chapter_scores_ in scores.items():
        parts.append(
            _chapter(
                chapter,
                chapter_scores_,
                [s for s in stats if s.chapter == chapter],
                [r for r in rows if r.chapter == chapter],
            )
        )
    parts.append(pairs_section(pairs, compared))
    parts.append("<h2 id='students'>Students</h2><p>")
    parts.append(
        ", ".join(f"<a href='#student-{i}'>{_e(name)}</a>" for i, name in enumerate(names))
    )
    parts.append("</p>")
    parts += [_student(i, name, students[name]) for i, name in enumerate(names)]
    parts.append("</body></html>")
    return "\n".join(parts)


def write_csv(rows: list[Row], path: Path) -> None:
    """diagnoses.csv: one line per diagnosis (the Row's fields), every text cell printable."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, COLUMNS)
        writer.writeheader()
        for row in rows:
            data = row.as_dict()
            writer.writerow({k: "" if v is None else _csv_safe(v) for k, v in data.items()})


def _csv_safe(value: object) -> object:
    """A text cell a spreadsheet will not read as a formula (a leading =, +, - or @ gets a quote)."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@"):
        return "'" + value
    return value
