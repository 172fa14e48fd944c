"""One grading task, run on a Dask worker: one student's notebook for one chapter, run once.

The task carries everything it needs (`Job`: the submitted bytes; `Release`: the course's release
data) and touches nothing of the course directory, so it runs the same on this machine and on
another host. The trusted grader (`autograder.judge.runner.grade_run`) runs the student's cells once in
the OS sandbox and checks every exercise; then, in a scratch course of its own, real `nbgrader
autograde` records the notebook without executing it: its execute step is replaced by the outputs
that one run showed (`outputs.RecordedOutputs`), never those saved in the file. Only the results
go back to the client, which alone writes the gradebook, the flags and the CSV.
"""

import hashlib
import os
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from autograder.course.flags import Reason
from autograder.course.tamper_scan import ScanFailed, scan_bounded
from autograder.judge.notebook import checksum, read_notebook, student_cells
from autograder.judge.runner import grade_run
from autograder.judge.verdicts import ExerciseReport
from autograder.sandbox.host import policy


@dataclass(frozen=True)
class Release:
    """What every task needs of the course, sent once to each worker."""

    gradebook: bytes  # the course's gradebook without students: assignments, notebooks, cells
    config: str  # the course's nbgrader_config.py (its course root is replaced on the worker)
    sources: dict[str, bytes]  # chapter -> the instructor's source notebook
    released: dict[str, bytes]  # chapter -> the notebook the students were given

    def for_chapter(self, chapter: str) -> "Release":
        """The part one chapter's tasks need."""
        return Release(
            self.gradebook,
            self.config,
            {chapter: self.sources[chapter]},
            {chapter: self.released[chapter]},
        )


def hold(release: Release) -> Release:
    """The release data as a task's result, the task every grading task of a chapter takes it from
    (`cluster.GradingTasks`)."""
    return release


@dataclass(frozen=True)
class Job:
    """One submission: a student's notebook for a chapter, as collected."""

    chapter: str
    student: str
    notebook: bytes

    @property
    def sha256(self) -> str:
        """The submitted notebook's hash (what a re-run compares to skip unchanged work)."""
        return hashlib.sha256(self.notebook).hexdigest()

    @property
    def name(self) -> str:
        """student/chapter, for messages."""
        return f"{self.student}/{self.chapter}"


@dataclass
class Graded:
    """What a task sends back: nbgrader's run, the trusted reports, and the reasons to flag."""

    chapter: str
    student: str
    sha256: str
    ran: bool  # nbgrader's autograde recorded the notebook
    error: str  # nbgrader's error when it did not
    autograded: bytes | None  # nbgrader's autograded notebook (the feedback is made from it)
    reports: list[ExerciseReport] | None  # the trusted grader's verdicts; None: not a notebook
    flags: list[str] = field(default_factory=list)
    seconds: float = 0.0  # wall time of the task on its worker
    stages: dict[str, float] = field(default_factory=dict)  # scan, grade, record: seconds each


def structural_flags(released: dict, submitted: dict) -> list[str]:
    """Locked cells edited or deleted, or nbgrader metadata stripped, relative to the released notebook."""

    def by_id(notebook: dict) -> dict[str, dict]:
        cells = {}
        for cell in notebook["cells"]:
            meta = cell.get("metadata", {}).get("nbgrader")
            if isinstance(meta, dict) and isinstance(meta.get("grade_id"), str):
                cells[meta["grade_id"]] = cell
        return cells

    before, after = by_id(released), by_id(submitted)
    if before and not after:
        return [Reason.STRIPPED.say()]
    flags = []
    for grade_id, cell in before.items():
        if not cell["metadata"]["nbgrader"].get("locked"):
            continue
        if grade_id not in after:
            flags.append(Reason.LOCKED_DELETED.say(grade_id))
        elif checksum(after[grade_id]) != checksum(cell):
            flags.append(Reason.LOCKED_EDITED.say(grade_id))
    return flags


def release_course(root: Path, chapter: str, release: Release) -> None:
    """A course directory holding the chapter's release data only (no students)."""
    root.mkdir(parents=True)
    (root / "nbgrader_config.py").write_text(release.config)
    (root / "gradebook.db").write_bytes(release.gradebook)
    source = root / "source" / chapter
    source.mkdir(parents=True)
    (source / f"{chapter}.ipynb").write_bytes(release.sources[chapter])


def _scratch_course(root: Path, job: Job, release: Release) -> Path:
    """A course directory holding this submission alone; the submitted notebook's path in it."""
    release_course(root, job.chapter, release)
    submitted = root / "submitted" / job.student / job.chapter
    submitted.mkdir(parents=True)
    (submitted / f"{job.chapter}.ipynb").write_bytes(job.notebook)
    return submitted / f"{job.chapter}.ipynb"


def _run_nbgrader(root: Path, job: Job, shown: list[tuple[str, list[dict]]]) -> tuple[bool, str]:
    """nbgrader autograde of the one submission in `root`, its execute step replaced by `shown`
    (each student cell's source and the outputs the graded run showed); (success, error)."""
    from nbgrader.converters.autograde import Autograde
    from nbgrader.preprocessors import Execute

    from autograder.course.nbgrader_api import nbgrader_api
    from autograder.course.outputs import CapOutputs, RecordedOutputs

    default = Autograde.class_traits()["autograde_preprocessors"].default()
    steps = [
        s
        for step in default
        for s in ((RecordedOutputs, CapOutputs) if step is Execute else (step,))
    ]
    api = nbgrader_api(
        root, {"Autograde": {"autograde_preprocessors": steps}, "RecordedOutputs": {"shown": shown}}
    )
    result = api.autograde(job.chapter, job.student, force=True, create=True)
    return bool(result["success"]), "" if result["success"] else (result.get("error") or "")[-2000:]


def _file_flags(path: Path, released: dict) -> list[str]:
    """Flags read off the submitted file: locked cells, stripped metadata, suspicious code (a hint)."""
    submitted = read_notebook(path)
    try:
        scanned = [
            Reason.SUSPICIOUS.say(finding) for _, finding in scan_bounded(released, submitted)
        ]
    except ScanFailed as failure:  # the submission is graded all the same
        scanned = [Reason.UNSCANNED.say(failure)]
    return structural_flags(released, submitted) + scanned


def grade_submission(
    job: Job,
    release: Release,
    seed: int,
    sandboxed: bool,
    scratch: str | None = None,
    then: Callable[[Path, Graded], None] | None = None,
) -> Graded:
    """Grade one submission: the trusted grader's one run, then nbgrader's record of it in a
    scratch course under `scratch`; `then(course, graded)` runs in that course before it is removed.

    A file that is not a readable notebook comes back with no reports and a flag saying why; a
    failure of the grader itself raises (the client reports it and exits non-zero).
    """
    start = time.perf_counter()
    import nbformat

    from autograder.course.outputs import shown_outputs
    from autograder.judge.exercises import chapter_exercises

    released = nbformat.reads(release.released[job.chapter].decode("utf-8"), as_version=4)
    graded = Graded(job.chapter, job.student, job.sha256, False, "", None, None)
    with tempfile.TemporaryDirectory(prefix="proof-lm-task-", dir=scratch) as tmp:
        root = Path(tmp, "course")
        path = _scratch_course(root, job, release)
        try:
            graded.flags = _file_flags(path, released)
            graded.stages["scan"] = time.perf_counter() - start
            names = {exercise.name for exercise in chapter_exercises(job.chapter)}
            cells = student_cells(read_notebook(path), names, released)
        except (ValueError, FileNotFoundError) as problem:  # the file is not a readable notebook
            why = str(problem).replace(str(path), f"submitted/{job.student}/{job.chapter}")
            graded.flags = [Reason.UNREADABLE.say(why[:300])]
            graded.seconds = time.perf_counter() - start
            return graded
        clock = time.perf_counter()
        sources = [source for _, source in cells]
        run = grade_run(job.chapter, sources, seed, sandboxed, cells=[n for n, _ in cells])
        graded.reports = run.reports
        graded.stages["grade"] = time.perf_counter() - clock
        clock = time.perf_counter()
        shown = list(zip(sources, shown_outputs(run.shown, len(sources)), strict=True))
        graded.ran, graded.error = _run_nbgrader(root, job, shown)
        graded.stages["record"] = time.perf_counter() - clock
        autograded = root / "autograded" / job.student / job.chapter / f"{job.chapter}.ipynb"
        graded.autograded = autograded.read_bytes() if autograded.is_file() else None
        if then is not None:
            then(root, graded)
    graded.seconds = time.perf_counter() - start
    return graded


def worker_environment() -> None:
    """Settings every grading worker runs with: one thread per library."""
    os.environ.update(policy.THREADS)
    # nbgrader's own gradebook calls warn about SQLAlchemy's autoflush: nothing an instructor can act on
    warnings.filterwarnings("ignore", message=".*not in session.*")
