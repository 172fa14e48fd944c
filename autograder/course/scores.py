"""A chapter's score from the gradebook, counted one way for the export, the feedback page and the server.

The autograded exercises' points out of their total; the challenges' extra credit apart; each
written answer's points once the instructor has graded it (in the formgrader), pending before.
nbgrader's own header adds the extra credit to the score and counts the written answers in the
maximum (`13 / 12`): `FeedbackScore` gives the feedback page's header the course's count instead
(`templates/proof_lm_feedback`).
"""

import contextlib
from dataclasses import dataclass

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from autograder.judge.exercises import Exercise, chapter_exercises
from autograder.judge.report import EXTRA, INSTRUCTOR, points, score_text


@dataclass(frozen=True)
class Written:
    """A written answer: its grade id, the points the instructor gave (None: not graded yet), its points."""

    answer: str
    given: float | None
    points: float


@dataclass(frozen=True)
class ChapterScore:
    """One student's score in one chapter, as every page says it (`text`)."""

    earned: float  # the autograded exercises'
    possible: float
    extra: float  # the challenges' extra credit
    extra_possible: float
    written: tuple[Written, ...]

    def text(self) -> str:
        """`Score: 10/10 + extra credit 3/3; written answers: ...` (`autograder.judge.report.score_text`)."""
        written = [(answer.given, answer.points) for answer in self.written]
        return score_text(self.earned, self.possible, self.extra, self.extra_possible, written)


def exercise_points(grade: object | None, exercise: Exercise) -> float:
    """What an exercise's nbgrader grade counts: its score, a challenge's extra credit; 0 without one."""
    if grade is None:
        return 0.0
    return float((grade.extra_credit if exercise.extra else grade.score) or 0.0)


def exercise_score(gradebook: object, exercise: Exercise, student: str) -> float:
    """What an exercise earned in the gradebook: its score, or a challenge's extra credit (0 when none)."""
    from nbgrader.api import MissingEntry

    with contextlib.suppress(MissingEntry):
        grade = gradebook.find_grade(exercise.name, exercise.chapter, exercise.chapter, student)
        return exercise_points(grade, exercise)
    return 0.0


def written_given(grade: object | None) -> float | None:
    """A written answer's points once graded, None while it awaits its grade.

    It is graded once the instructor gave it points (nbgrader asks for a review of them again after
    a re-grade; they count until changed) or nbgrader scored it (0 for an answer left blank).
    """
    if grade is None or (grade.manual_score is None and grade.needs_manual_grade):
        return None
    return float(grade.score or 0.0)


def written_answers(gradebook: object, chapter: str, student: str) -> tuple[Written, ...]:
    """The chapter's written answers: its grade cells that are no exercise's."""
    from nbgrader.api import MissingEntry

    exercises = {exercise.name for exercise in chapter_exercises(chapter)}
    notebook = gradebook.find_notebook(chapter, chapter)
    written = []
    for cell in notebook.grade_cells:
        if cell.name in exercises:
            continue
        grade = None
        with contextlib.suppress(MissingEntry):
            grade = gradebook.find_grade(cell.name, chapter, chapter, student)
        written.append(Written(cell.name, written_given(grade), cell.max_score))
    return tuple(written)


def chapter_score(gradebook: object, chapter: str, student: str) -> ChapterScore:
    """One student's score in `chapter`, read from the gradebook as `make export` counts it."""
    exercises = chapter_exercises(chapter)
    regular = [e for e in exercises if not e.extra]
    extra = [e for e in exercises if e.extra]
    return ChapterScore(
        sum(exercise_score(gradebook, e, student) for e in regular),
        float(sum(e.points for e in regular)),
        sum(exercise_score(gradebook, e, student) for e in extra),
        float(sum(e.points for e in extra)),
        written_answers(gradebook, chapter, student),
    )


class FeedbackScore(Preprocessor):
    """For feedback, after nbgrader's GetGrades: the course's score for the page's header and its
    list of parts (`resources["proof_lm"]`), a challenge's cell scored by its extra credit, and a
    written answer not graded yet shown without a score (nbgrader's would be 0)."""

    enabled = Bool(True).tag(config=True)  # nbconvert's default is off

    def preprocess(self, nb: object, resources: dict) -> tuple[object, dict]:
        """Read the student's score in this chapter and describe each graded part."""
        from nbgrader.api import Gradebook

        about = resources["nbgrader"]
        chapter, student = about["assignment"], about["student"]
        with Gradebook(about["db_url"]) as gradebook:
            score = chapter_score(gradebook, chapter, student)
            earned = {
                e.name: (exercise_score(gradebook, e, student), e)
                for e in chapter_exercises(chapter)
            }
        written = {answer.answer: answer for answer in score.written}
        parts = []
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader")
            grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
            if not isinstance(grade_id, str) or not meta.get("grade"):
                continue
            if grade_id in earned:
                value, exercise = earned[grade_id]
                kind = f" ({EXTRA})" if exercise.extra else ""
                meta["score"], meta["points"] = value, float(exercise.points)
                parts.append((grade_id, f"{grade_id}{kind}: {points(value)}/{exercise.points}"))
            elif grade_id in written:
                answer = written[grade_id]
                anchor = f"comment-{grade_id}" if meta.get("solution") else grade_id
                if answer.given is None:
                    said = f"{INSTRUCTOR} ({points(answer.points)} points, pending)"
                    if meta.get("solution"):  # its heading without nbgrader's score (0 points)
                        meta["grade"] = False
                else:
                    said = f"{points(answer.given)}/{points(answer.points)}, {INSTRUCTOR}"
                parts.append((anchor, f"{grade_id} (written answer): {said}"))
        resources["proof_lm"] = {"score": score.text(), "parts": parts}
        return nb, resources
