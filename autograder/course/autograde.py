"""Grading a class on Dask distributed: one task per (student, chapter); the client alone writes results.

The client reads each collected notebook, skips those graded before with the same bytes, the same
source notebook and the same sandbox setting (COURSE/autograde.json), and submits one task per
remaining submission (`task.grade_submission`) to a Dask cluster (`cluster.grading_client`: a
LocalCluster by default, or a running scheduler). Results come back as they finish; the client
writes each into the course (`record.record`) and keeps COURSE/flags.json and COURSE/autograde.json
(the seed of every submission's hidden cases, the sandbox setting, the hashes). A submission whose
task failed (its workers kept dying, or the grader itself failed) is named, everything else is
graded, and `GradingIncomplete` is raised at the end.
"""

import ast
import functools
import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from autograder.course.cluster import ATTEMPTS, GradingTasks, grading_client
from autograder.course.directory import db_url
from autograder.course.flags import Reason
from autograder.course.printable import printable
from autograder.course.record import record
from autograder.course.task import Graded, Job, Release, grade_submission
from autograder.judge.exercises import declarations
from autograder.judge.session import new_seed
from autograder.paths import REPO
from autograder.sandbox.host import bwrap

CHECKS = "autograder.judge.checks."
STATE = "autograde.json"


class GradingIncomplete(RuntimeError):
    """Some submissions could not be graded (their workers kept dying); the rest are in the gradebook."""


@dataclass
class AutogradeRun:
    """What one autograde run did."""

    flags: dict[str, dict[str, list[str]]]  # student -> chapter -> reasons (the whole class)
    graded: list[Graded] = field(default_factory=list)  # graded in this run
    skipped: int = 0  # unchanged since they were graded
    seconds: float = 0.0


def submissions(root: Path, chapters: list[str]) -> list[tuple[str, str]]:
    """Every (chapter, student) with a submitted notebook."""
    return sorted(
        (chapter, path.parent.parent.name)
        for chapter in chapters
        for path in (root / "submitted").glob(f"*/{chapter}/{chapter}.ipynb")
    )


def release_data(root: Path, chapters: list[str]) -> Release:
    """The course's release data: its gradebook emptied of students, the source and released notebooks."""
    import shutil
    import tempfile

    from nbgrader.api import Gradebook

    with tempfile.TemporaryDirectory(prefix="proof-lm-release-") as tmp:
        copy = Path(tmp, "gradebook.db")
        shutil.copyfile(root / "gradebook.db", copy)
        with Gradebook(f"sqlite:///{copy}") as gradebook:
            for student in [s.id for s in gradebook.students]:
                gradebook.remove_student(student)
        data = copy.read_bytes()
    return Release(
        gradebook=data,
        config=(root / "nbgrader_config.py").read_text(),
        sources={c: (root / "source" / c / f"{c}.ipynb").read_bytes() for c in chapters},
        released={c: (root / "release" / c / f"{c}.ipynb").read_bytes() for c in chapters},
    )


def _manifest_flags(manifest: dict, job: Job) -> list[str]:
    """What collect recorded: files handed in beside the notebook, a change since collection."""
    record_ = manifest.get(job.student, {}).get(job.chapter)
    if not record_:
        return []
    reasons = []
    if record_.get("not_copied"):
        names = ", ".join(printable(name, limit=200) for name in record_["not_copied"])
        reasons.append(Reason.BESIDE.say(names))
    if record_["sha256"] != job.sha256:
        reasons.append(Reason.CHANGED.say())
    return reasons


def _fingerprint(job: Job, release: Release, sandboxed: bool) -> dict:
    """What a re-run compares to decide whether a submission needs grading again.

    The notebook, the chapter's source notebook (its references) and released notebook (what its
    locked cells are), the sandbox setting, and the code and data that decide the chapter's scores
    (`grader_hash`): after a fix to one of its checks, to the judge, the sandbox, the grading task,
    `proof_lm` or its data, the chapter is graded again; a change to the server, the kit or the
    command lines, a comment or a docstring is not.
    """
    source = hashlib.sha256(release.sources[job.chapter]).hexdigest()
    released = hashlib.sha256(release.released[job.chapter]).hexdigest()
    return {
        "sha256": job.sha256,
        "source": source,
        "released": released,
        "sandbox": sandboxed,
        "grader": _grader_hash(job.chapter),
    }


def grading_files(chapter: str, root: Path = REPO) -> list[Path]:
    """The files that decide a chapter's scores and flags: the judge, the sandbox, the grading task
    and its recording (`course/`), the library and its data, and the check modules that declare the
    chapter's exercises with the check modules they import. Not the server, the kit or the command
    lines, nor another chapter's declarations: an exercise added or changed re-grades its chapter."""
    autograder = root / "autograder"
    files = [*(autograder / "judge").glob("*.py"), *(autograder / "course").glob("*.py")]
    files += [autograder / "__init__.py", autograder / "paths.py"]
    files += [p for p in (autograder / "sandbox").rglob("*") if p.suffix in (".py", ".json")]
    files += [
        *(root / "proof_lm").rglob("*.py"),
        *(p for p in (root / "data").rglob("*") if p.is_file()),
    ]
    checks = autograder / "judge" / "checks"
    wanted = [checks / f"{e.module}.py" for e in declarations(checks) if e.chapter == chapter]
    seen: set[Path] = set()
    while wanted:
        path = wanted.pop()
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(CHECKS):
                wanted.append(checks / f"{node.module.removeprefix(CHECKS)}.py")
    return sorted({*files, *seen, checks / "__init__.py"})


def _code(path: Path) -> bytes:
    """What of a file decides a score: a Python file's syntax tree without its docstrings (so a
    comment, a docstring or a reformatting changes nothing), any other file's bytes."""
    if path.suffix != ".py":
        return path.read_bytes()
    return _python_code(path.read_text())


@functools.lru_cache(maxsize=1024)  # chapters share most files: each text is parsed once
def _python_code(text: str) -> bytes:
    """`_code` of a Python file's text."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            body[0] = ast.Pass()
    return ast.dump(tree).encode()


def grader_hash(chapter: str, root: Path = REPO) -> str:
    """A hash of what decides the chapter's scores (`grading_files`), comments and docstrings aside."""
    digest = hashlib.sha256()
    for path in grading_files(chapter, root):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + _code(path) + b"\0")
    return digest.hexdigest()


_grader_hash = functools.cache(grader_hash)  # one autograde run reads the files once


def _load_state(root: Path) -> dict:
    state = _read_json(root / STATE)
    state.setdefault("submissions", {})
    return state


@dataclass
class ClassRun:
    """One autograde run over a course: what it reads once, what it writes as results arrive."""

    root: Path
    seed: int
    sandboxed: bool
    state: dict = field(init=False)
    flags: dict = field(init=False)
    manifest: dict = field(init=False)
    failures: dict[str, str] = field(default_factory=dict)  # student/chapter -> why

    def __post_init__(self) -> None:
        self.state = _load_state(self.root)
        self.flags = _read_json(self.root / "flags.json")
        self.manifest = _read_json(self.root / "collected.json")

    def plan(self, chapters: list[str], release: Release, force: bool) -> tuple[list[Job], int]:
        """The submissions to grade (new or changed, or all with `force`), and how many are skipped."""
        jobs, skipped = [], 0
        for chapter, student in submissions(self.root, chapters):
            path = self.root / "submitted" / student / chapter / f"{chapter}.ipynb"
            job = Job(chapter, student, path.read_bytes() if path.is_file() else b"")
            before = self.state["submissions"].get(job.name, {})
            if not force and before.get("fingerprint") == _fingerprint(
                job, release, self.sandboxed
            ):
                skipped += 1
            else:
                jobs.append(job)
        return jobs, skipped

    def submit(self, client: object, jobs: list[Job], release: Release) -> dict:
        """One task per job (and one per chapter holding its release data); futures -> jobs."""
        tasks = GradingTasks(client, grade_submission, release.for_chapter)
        return {
            tasks.submit(job, self.seed, self.sandboxed, f"{job.student}-{job.chapter}"): job
            for job in jobs
        }

    def take(self, gradebook: object, job: Job, release: Release, future: object) -> bool:
        """Write one finished task's result into the course; False (and the reason kept) if it failed."""
        try:
            graded = future.result()
        except Exception as error:  # its workers kept dying, or the grader itself failed
            self.failures[job.name] = printable(f"{type(error).__name__}: {error}", limit=300)
            return False
        try:
            reasons = record(self.root, gradebook, graded, _manifest_flags(self.manifest, job))
        except Exception as error:  # one submission's trouble stops no one else
            gradebook.db.rollback()
            self.failures[job.name] = printable(
                f"recording failed: {type(error).__name__}: {error}"
            )
            return False
        chapters = self.flags.setdefault(job.student, {})
        chapters.pop(job.chapter, None)
        if reasons:
            chapters[job.chapter] = reasons
        if not chapters:
            del self.flags[job.student]
        self.state["submissions"][job.name] = {
            "fingerprint": _fingerprint(job, release, self.sandboxed),
            "seed": self.seed,
            "seconds": round(graded.seconds, 2),
        }
        self.save()
        return True

    def save(self) -> None:
        """Write flags.json and autograde.json (each replaced whole, at once)."""
        recorded = self.state["submissions"].values()
        self.state.update(
            seed=self.seed,
            sandbox=self.sandboxed and all(e["fingerprint"]["sandbox"] for e in recorded),
        )
        for name, data in (("flags.json", self.flags), (STATE, self.state)):
            temporary = self.root / f".{name}.tmp"
            temporary.write_text(json.dumps(data, indent=2, sort_keys=True))
            temporary.replace(self.root / name)


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text()) if path.exists() else {}


def autograde(
    root: Path,
    chapters: list[str],
    sandboxed: bool = True,
    scheduler: str | None = None,
    seed: int | None = None,
    force: bool = False,
    workers: int | None = None,
) -> AutogradeRun:
    """Grade every new or changed submission of `chapters` on a Dask cluster; the whole class's flags.

    SandboxUnavailable (with install instructions) unless bubblewrap works or `sandboxed` is False;
    GradingIncomplete, after everything else is written, when a submission could not be graded.
    """
    from distributed import as_completed
    from nbgrader.api import Gradebook
    from tqdm.auto import tqdm

    if sandboxed:
        bwrap.check_available()
    start = time.perf_counter()
    run = ClassRun(root, new_seed() if seed is None else seed, sandboxed)
    release = release_data(root, chapters)
    jobs, skipped = run.plan(chapters, release, force)
    print(
        f"{len(jobs)} submissions to grade, {skipped} unchanged since they were graded", flush=True
    )
    outcome = AutogradeRun(run.flags, skipped=skipped)
    if jobs:
        # a local cluster of one worker per core, but never more workers than submissions
        workers = workers or min(len(jobs), os.cpu_count() or 1)
        with grading_client(scheduler, workers) as client, Gradebook(db_url(root)) as gradebook:
            print(f"Dask dashboard: {client.dashboard_link}", flush=True)
            futures = run.submit(client, jobs, release)
            with tqdm(total=len(futures), unit="notebook", file=sys.stderr) as bar:
                for future in as_completed(futures):
                    job = futures[future]
                    if run.take(gradebook, job, release, future):
                        outcome.graded.append(future.result())
                    bar.update()
                    bar.set_postfix(
                        done=len(outcome.graded),
                        failed=len(run.failures),
                        remaining=len(futures) - bar.n,
                    )
    run.save()
    outcome.seconds = time.perf_counter() - start
    if run.failures:
        raise GradingIncomplete(
            f"{len(run.failures)} submissions could not be graded (a worker died {ATTEMPTS} "
            "times, or the grader failed): "
            + "; ".join(f"{printable(name)}: {why}" for name, why in sorted(run.failures.items()))
        )
    return outcome
