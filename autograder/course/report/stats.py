"""Where the class is stuck: the trusted reports of a class counted per chapter, exercise and diagnosis.

The input is what every grading keeps: for each graded submission, the trusted grader's reports
as data (`judge.report.as_json`), in the course (`COURSE/verdicts/<student>/<chapter>.json`,
written by `record.keep_verdicts`) or in the server's database (`Submission.reports`). A
diagnosis is what stopped a student on an exercise: the hint of a failed check (it names the
likely mistake; one mistake usually fails several checks with the same hint, and the checks are
listed beside it), a note (a timeout, a crash, code that did not load), a flag, or no report at
all (a file that is not a readable notebook). Every count is of students, each counted once per
diagnosis.
"""

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from autograder.course.printable import printable
from autograder.course.record import VERDICTS
from autograder.judge.exercises import EXERCISES, chapter_exercises
from autograder.judge.report import from_json
from autograder.judge.verdicts import ExerciseReport

NO_REPORT = "no report: the notebook could not be read, or the exercise was not graded"
CHECKS_SHOWN = 5  # check names listed beside a diagnosis at most (the rest counted)
HINT_LIMIT = 300  # characters of a hint kept (a hint may quote what the student's code raised)


@dataclass(frozen=True)
class Kept:
    """One graded submission as kept: the trusted reports (None: not a readable notebook)."""

    student: str
    chapter: str
    reports: list[ExerciseReport] | None
    flags: list[str] = field(default_factory=list)

    def report(self, exercise: str) -> ExerciseReport | None:
        """The report of `exercise`, or None."""
        return next((r for r in self.reports or [] if r.exercise == exercise), None)


@dataclass(frozen=True)
class Row:
    """One line of diagnoses.csv: how many students one diagnosis stopped on one exercise."""

    chapter: str
    exercise: str
    diagnosis: str
    checks: str  # the checks that failed with it, "; "-separated
    students: int  # stopped by it (in the course's grading, or the server's latest submissions)
    share: float  # of the students graded on the chapter
    first: int | None = (
        None  # stopped by it on their first server submission (None: no server data)
    )
    last: int | None = None  # ... on their latest server submission

    def as_dict(self) -> dict:
        """The row as JSON-able data (the CSV's columns)."""
        return {
            "chapter": self.chapter,
            "exercise": self.exercise,
            "diagnosis": self.diagnosis,
            "checks": self.checks,
            "students": self.students,
            "share": round(self.share, 4),
            "first_submission": self.first,
            "last_submission": self.last,
        }


def kept_from_data(data: dict) -> Kept:
    """A kept submission from its JSON (`record.verdicts_data`); ValueError when it is not one."""
    try:
        reports = data["reports"]
        return Kept(
            str(data["student"]),
            str(data["chapter"]),
            None if reports is None else [from_json(r) for r in reports],
            [str(flag) for flag in data.get("flags", [])],
        )
    except (KeyError, TypeError) as error:
        raise ValueError(f"not a kept grading ({error!r})") from None


def course_kept(root: Path) -> list[Kept]:
    """Every graded submission the course keeps (COURSE/verdicts), by student and chapter."""
    paths = sorted(Path(root, VERDICTS).glob("*/*.json"))
    return [kept_from_data(json.loads(path.read_text())) for path in paths]


def diagnoses(kept: Kept, exercise: str) -> dict[str, set[str]]:
    """What stopped the student on `exercise`: diagnosis -> the checks that failed with it; empty
    when it earned its points."""
    report = kept.report(exercise)
    if report is None:
        return {NO_REPORT: set()}
    if report.earned:
        return {}
    found: dict[str, set[str]] = defaultdict(set)
    for result in report.results:
        if not result.passed:
            found[printable(result.hint, HINT_LIMIT)].add(printable(result.name, HINT_LIMIT))
    for said in [*report.notes, *report.loading, *(f"flagged: {flag}" for flag in report.flags)]:
        found.setdefault(printable(said, HINT_LIMIT), set())
    return dict(found) or {"no check ran": set()}


Key = tuple[str, str, str]  # chapter, exercise, diagnosis


def _counts(kept: list[Kept]) -> tuple[dict[Key, int], dict[Key, set[str]]]:
    """Students stopped by each diagnosis, and the checks that failed with it."""
    counts: dict[Key, int] = defaultdict(int)
    checks: dict[Key, set[str]] = defaultdict(set)
    for one in kept:
        for exercise in chapter_exercises(one.chapter):
            for diagnosis, names in diagnoses(one, exercise.name).items():
                counts[(one.chapter, exercise.name, diagnosis)] += 1
                checks[(one.chapter, exercise.name, diagnosis)] |= names
    return counts, checks


def _checks(names: set[str]) -> str:
    shown = sorted(names)[:CHECKS_SHOWN]
    more = len(names) - len(shown)
    return "; ".join(shown) + (f"; and {more} more" if more else "")


def _exercise_order(chapter: str, exercise: str) -> tuple[str, int]:
    names = [e.name for e in chapter_exercises(chapter)]
    return chapter, names.index(exercise) if exercise in names else len(names)


def diagnosis_rows(
    kept: list[Kept], first: list[Kept] | None = None, last: list[Kept] | None = None
) -> list[Row]:
    """Every diagnosis of `kept` with the students it stopped, by chapter and exercise in notebook
    order, the most common first; with the server's first and latest submissions, how many each
    stopped then."""
    class_size: dict[str, int] = defaultdict(int)
    for one in kept:
        class_size[one.chapter] += 1
    counts, checks = _counts(kept)
    (before, checks_before), (after, checks_after) = _counts(first or []), _counts(last or [])
    server = first is not None and last is not None
    rows = [
        Row(
            *key,
            _checks(
                checks.get(key, set())
                | checks_before.get(key, set())
                | checks_after.get(key, set())
            ),
            counts.get(key, 0),
            counts.get(key, 0) / class_size[key[0]] if class_size[key[0]] else 0.0,
            before.get(key, 0) if server else None,
            after.get(key, 0) if server else None,
        )
        for key in set(counts) | set(before) | set(after)
    ]
    return sorted(
        rows,
        key=lambda r: (
            *_exercise_order(r.chapter, r.exercise),
            -r.students,
            -(r.first or 0),
            r.diagnosis,
        ),
    )


@dataclass(frozen=True)
class ExerciseStats:
    """One exercise over the class: how many earned its points, and the points the class lost on it."""

    chapter: str
    exercise: str
    points: int
    extra: bool
    graded: int  # students with a submission of the chapter
    earned: int  # students who earned the points

    @property
    def lost(self) -> int:
        """Points the class lost on it (a challenge's are extra credit: none lost)."""
        return 0 if self.extra else self.points * (self.graded - self.earned)


def exercise_stats(kept: list[Kept]) -> list[ExerciseStats]:
    """Every exercise of every chapter graded, in course order."""
    by_chapter: dict[str, list[Kept]] = defaultdict(list)
    for one in kept:
        by_chapter[one.chapter].append(one)
    stats = []
    for chapter in sorted(by_chapter):
        for exercise in chapter_exercises(chapter):
            earned = sum(
                bool((r := one.report(exercise.name)) and r.earned) for one in by_chapter[chapter]
            )
            stats.append(
                ExerciseStats(
                    chapter,
                    exercise.name,
                    exercise.points,
                    exercise.extra,
                    len(by_chapter[chapter]),
                    earned,
                )
            )
    return stats


def chapter_scores(kept: list[Kept]) -> dict[str, list[int]]:
    """Each chapter's regular scores over the class (one per student graded)."""
    scores: dict[str, list[int]] = defaultdict(list)
    for one in kept:
        scores[one.chapter].append(
            sum(r.earned for r in one.reports or [] if not EXERCISES[r.exercise].extra)
        )
    return dict(sorted(scores.items()))


def first_and_last(rows: list[tuple[int, Kept]]) -> tuple[list[Kept], list[Kept]]:
    """From (submission id, kept) of graded submissions: each student's first and latest per chapter."""
    first: dict[tuple[str, str], tuple[int, Kept]] = {}
    last: dict[tuple[str, str], tuple[int, Kept]] = {}
    for number, one in rows:
        key = (one.student, one.chapter)
        if key not in first or number < first[key][0]:
            first[key] = (number, one)
        if key not in last or number > last[key][0]:
            last[key] = (number, one)
    return [v for _, v in sorted(first.values())], [v for _, v in sorted(last.values())]
