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

import hashlib
import json
import secrets
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from autograder import sandbox
from autograder.course.cluster import ATTEMPTS, grading_client, scratch_directory
from autograder.course.record import db_url, record
from autograder.course.task import Graded, Job, Release, grade_submission
from autograder.runner import new_seed

STATE = "autograde.json"


class GradingIncomplete(RuntimeError):
    """Some submissions could not be graded (their workers kept dying); the rest are in the gradebook."""


@dataclass
class Outcome:
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
    if record_["not_copied"]:
        reasons.append(
            f"handed in files beside the notebook (not graded): {', '.join(record_['not_copied'])}"
        )
    if record_["sha256"] != job.sha256:
        reasons.append("the submitted notebook changed after it was collected")
    return reasons


def _fingerprint(job: Job, release: Release, sandboxed: bool) -> dict:
    """What a re-run compares to decide whether a submission needs grading again."""
    source = hashlib.sha256(release.sources[job.chapter]).hexdigest()
    return {"sha256": job.sha256, "source": source, "sandbox": sandboxed}


def _load_state(root: Path) -> dict:
    path = root / STATE
    state = json.loads(path.read_text()) if path.exists() else {}
    state.setdefault("submissions", {})
    return state


def _keep(release: Release) -> Release:
    """The release data, as a task's result (so that Dask can compute it again if it is lost)."""
    return release


def _task(job: Job, release: Release, seed: int, sandboxed: bool) -> Graded:
    """The task as a worker runs it: in its plugin's scratch directory."""
    return grade_submission(job, release, seed, sandboxed, scratch_directory())


def autograde(
    root: Path,
    chapters: list[str],
    sandboxed: bool = True,
    scheduler: str | None = None,
    seed: int | None = None,
    force: bool = False,
    workers: int | None = None,
) -> Outcome:
    """Grade every new or changed submission of `chapters` on a Dask cluster; the whole class's flags.

    SandboxUnavailable (with install instructions) unless bubblewrap works or `sandboxed` is False;
    GradingIncomplete, after everything else is written, when a submission could not be graded.
    """
    from distributed import as_completed
    from nbgrader.api import Gradebook
    from tqdm.auto import tqdm

    if sandboxed:
        sandbox.check_available()
    start = time.perf_counter()
    seed = new_seed() if seed is None else seed
    state = _load_state(root)
    flags_path = root / "flags.json"
    flags = json.loads(flags_path.read_text()) if flags_path.exists() else {}
    manifest_path = root / "collected.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    release = release_data(root, chapters)
    jobs, skipped = [], 0
    for chapter, student in submissions(root, chapters):
        path = root / "submitted" / student / chapter / f"{chapter}.ipynb"
        job = Job(chapter, student, path.read_bytes() if path.is_file() else b"")
        before = state["submissions"].get(job.name, {})
        if not force and before.get("fingerprint") == _fingerprint(job, release, sandboxed):
            skipped += 1
            continue
        jobs.append(job)
    print(
        f"{len(jobs)} submissions to grade, {skipped} unchanged since they were graded", flush=True
    )
    outcome = Outcome(flags, skipped=skipped)
    failures: dict[str, str] = {}
    if jobs:
        with (
            grading_client(scheduler, workers) as client,
            Gradebook(db_url(root)) as gradebook,
        ):
            print(f"Dask dashboard: {client.dashboard_link}", flush=True)
            run = secrets.token_hex(6)  # keys of this run, distinct from any other on the cluster
            # one small task per chapter holds its release data: computed once per worker that needs
            # it and, unlike scattered data, recomputed by the scheduler if every holder dies
            shared = {
                chapter: client.submit(
                    _keep, release.for_chapter(chapter), key=f"release-{chapter}-{run}"
                )
                for chapter in {job.chapter for job in jobs}
            }
            futures = {
                client.submit(
                    _task,
                    job,
                    shared[job.chapter],
                    seed,
                    sandboxed,
                    key=f"grade-{job.student}-{job.chapter}-{run}",
                ): job
                for job in jobs
            }
            bar = tqdm(total=len(futures), unit="notebook", file=sys.stderr)
            for future in as_completed(futures):
                job = futures[future]
                try:
                    graded = future.result()
                except Exception as error:  # workers kept dying, or the grader itself failed
                    failures[job.name] = f"{type(error).__name__}: {str(error)[:300]}"
                else:
                    try:
                        reasons = _manifest_flags(manifest, job) + record(root, gradebook, graded)
                    except Exception as error:  # one submission's trouble stops no one else
                        gradebook.db.rollback()
                        failures[job.name] = f"recording failed: {type(error).__name__}: {error}"
                        continue
                    flags.setdefault(job.student, {}).pop(job.chapter, None)
                    if reasons:
                        flags[job.student][job.chapter] = reasons
                    if not flags[job.student]:
                        del flags[job.student]
                    state["submissions"][job.name] = {
                        "fingerprint": _fingerprint(job, release, sandboxed),
                        "seed": seed,
                        "seconds": round(graded.seconds, 2),
                    }
                    outcome.graded.append(graded)
                    _save(root, flags, state, seed, sandboxed)
                bar.update()
                bar.set_postfix(
                    done=len(outcome.graded),
                    failed=len(failures),
                    remaining=len(futures) - len(outcome.graded) - len(failures),
                )
            bar.close()
    _save(root, flags, state, seed, sandboxed)
    outcome.seconds = time.perf_counter() - start
    if failures:
        raise GradingIncomplete(
            f"{len(failures)} submissions could not be graded (a worker died {ATTEMPTS} times, or "
            f"the grader failed): "
            + "; ".join(f"{name}: {why}" for name, why in sorted(failures.items()))
        )
    return outcome


def _save(root: Path, flags: dict, state: dict, seed: int, sandboxed: bool) -> None:
    """Write flags.json and autograde.json (whole files, replaced at once)."""
    state.update(
        seed=seed,
        sandbox=sandboxed
        and all(entry["fingerprint"]["sandbox"] for entry in state["submissions"].values()),
    )
    for name, data in (("flags.json", flags), (STATE, state)):
        temporary = root / f".{name}.tmp"
        temporary.write_text(json.dumps(data, indent=2, sort_keys=True))
        temporary.replace(root / name)
