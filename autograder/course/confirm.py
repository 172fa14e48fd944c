"""Trusted confirmation: every submission graded again in the sandbox, scores written, flags raised.

The notebook's own run cannot be trusted — code in the notebook can patch the checks inside its
kernel — so after nbgrader has graded, every submission is graded again on the trusted path
(`autograder.grading.grade_notebook`: a new sandboxed process per exercise, references computed
outside it, only plain answers coming back). The trusted score is written into the gradebook; the
submission is flagged for what the grading process saw (timeouts, crashes, memory), what the file
shows (locked cells edited or deleted, metadata stripped, changed after collection, files handed
in beside it) and suspicious code (`autograder.course.tamper_scan`, a hint). Flags are kept in
COURSE/flags.json and exported; the run's seed and whether the sandbox was on in COURSE/autograde.json.
"""

import contextlib
import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from autograder.course.tamper_scan import scan_notebook
from autograder.exercises import chapter_exercises
from autograder.grading import grade_notebook
from autograder.notebook import cell_source, read_notebook
from autograder.runner import new_seed



def structural_flags(released: dict, submitted: dict) -> list[str]:
    """Locked cells edited or deleted, or nbgrader metadata stripped, relative to the released notebook."""

    def by_id(notebook: dict) -> dict[str, dict]:
        cells = {}
        for cell in notebook["cells"]:
            meta = cell.get("metadata", {}).get("nbgrader")
            if isinstance(meta, dict) and "grade_id" in meta:
                cells[meta["grade_id"]] = cell
        return cells

    before, after = by_id(released), by_id(submitted)
    if before and not after:
        return ["nbgrader metadata stripped from every cell"]
    flags = []
    for grade_id, cell in before.items():
        if not cell["metadata"]["nbgrader"].get("locked"):
            continue
        if grade_id not in after:
            flags.append(f"locked cell {grade_id} deleted (or its metadata stripped)")
        elif cell_source(after[grade_id]) != cell_source(cell):
            flags.append(f"locked cell {grade_id} edited")
    return flags


def _submitted_path(root: Path, chapter: str, student: str) -> Path:
    return root / "submitted" / student / chapter / f"{chapter}.ipynb"


def _notebook_flags(
    root: Path, chapter: str, student: str, released: dict, manifest: dict
) -> list[str]:
    """Flags read off the submitted file itself: hand-ins, changes, locked cells, suspicious code."""
    path = _submitted_path(root, chapter, student)
    reasons = []
    record = manifest.get(student, {}).get(chapter)
    if record and record["not_copied"]:
        reasons.append(
            f"handed in files beside the notebook (not graded): {', '.join(record['not_copied'])}"
        )
    if record and hashlib.sha256(path.read_bytes()).hexdigest() != record["sha256"]:
        reasons.append("the submitted notebook changed after it was collected")
    submitted = read_notebook(path)
    reasons += structural_flags(released, submitted)
    findings = scan_notebook(released, submitted)
    reasons += [
        f"suspicious code in {finding} (a hint to look; it changes no score)"
        for _, finding in findings
    ]
    return reasons


def _record_scores(
    gradebook: object, chapter: str, student: str, reports: list, ran: bool
) -> list[str]:
    """Write the trusted scores into the gradebook; the reasons to flag what was found on the way."""
    from nbgrader.api import MissingEntry

    reasons = []
    gradebook.update_or_create_student(student)
    try:
        gradebook.find_submission(chapter, student)
    except MissingEntry:
        gradebook.add_submission(chapter, student)
    for report in reports:
        reasons += [f"{report.exercise}: {flag} in the trusted grader" for flag in report.flags]
        earned = report.earned
        try:
            grade = gradebook.find_grade(report.exercise, chapter, chapter, student)
        except MissingEntry:
            continue  # nbgrader never got as far as this notebook: export counts it as 0
        kernel = grade.auto_score
        if kernel is None or abs(kernel - earned) > 1e-9:
            if ran and kernel is not None and kernel > earned:
                reasons.append(
                    f"{report.exercise}: the notebook's own run scored {kernel}, the trusted grader "
                    f"{earned}; the trusted score stands"
                )
            grade.manual_score = float(earned)
    return reasons


def _mark_flagged(gradebook: object, chapter: str, student: str, flagged: bool) -> None:
    """Set the submission's flag in the gradebook (the formgrader shows it)."""
    from nbgrader.api import MissingEntry

    with contextlib.suppress(MissingEntry):
        gradebook.find_submission_notebook(chapter, chapter, student).flagged = flagged


def _zero_scores(gradebook: object, chapter: str, student: str) -> None:
    """Every exercise of an unreadable submission scores 0 (where nbgrader recorded a grade)."""
    from nbgrader.api import MissingEntry

    for exercise in chapter_exercises(chapter):
        with contextlib.suppress(MissingEntry):
            gradebook.find_grade(exercise.name, chapter, chapter, student).manual_score = 0.0


def confirm(
    root: Path,
    jobs: list[tuple[str, str]],
    nbgrader_results: dict,
    workers: int = 2,
    sandboxed: bool = True,
    seed: int | None = None,
) -> dict:
    """Grade every submission on the trusted path, overwrite disagreeing scores, flag; return the flags.

    Each submission is confirmed on its own: a file that cannot be read, or anything else that goes
    wrong with it, flags that submission and scores it 0; every other student is still graded.
    """
    from nbgrader.api import Gradebook

    seed = new_seed() if seed is None else seed
    failed: list[tuple[str, str]] = []
    manifest_path = root / "collected.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    released = {
        chapter: read_notebook(root / "release" / chapter / f"{chapter}.ipynb")
        for chapter in {chapter for chapter, _ in jobs}
    }

    def trusted(job: tuple[str, str]) -> tuple[list | None, str]:
        chapter, student = job
        path = _submitted_path(root, chapter, student)
        try:
            return grade_notebook(path, chapter, seed, sandboxed, released[chapter]), ""
        except (ValueError, FileNotFoundError) as error:  # the file is not a readable notebook
            return None, f"the submission is not a readable notebook: {str(error)[:300]}"
        except Exception as error:  # the grader's own failure: not the student's fault
            failed.append(job)
            return None, f"the trusted grader failed ({type(error).__name__}: {str(error)[:300]})"

    with ThreadPoolExecutor(max_workers=workers) as pool:
        outcomes = dict(zip(jobs, pool.map(trusted, jobs), strict=True))
    flags: dict[str, dict[str, list[str]]] = {}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        for (chapter, student), (reports, problem) in outcomes.items():
            ran = nbgrader_results.get((chapter, student), {}).get("success", False)
            reasons = [] if ran else [NBGRADER_FAILED]
            try:
                if reports is None:
                    raise ValueError(problem)
                reasons += _notebook_flags(root, chapter, student, released[chapter], manifest)
                reasons += _record_scores(gradebook, chapter, student, reports, ran)
            except Exception as error:
                reasons.append(str(error)[:300] or type(error).__name__)
                _zero_scores(gradebook, chapter, student)
            _mark_flagged(gradebook, chapter, student, bool(reasons))
            gradebook.db.commit()
            if reasons:
                flags.setdefault(student, {})[chapter] = reasons
    (root / "flags.json").write_text(json.dumps(flags, indent=2, sort_keys=True))
    (root / "autograde.json").write_text(json.dumps({"seed": seed, "sandbox": sandboxed}, indent=2))
    return flags


NBGRADER_FAILED = (
    "nbgrader could not grade the notebook (its kernel died, was stopped or ran out of time)"
)
