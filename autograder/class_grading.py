"""Grading a class: nbgrader autograde on both cores, every score confirmed by the trusted grader, flags.

The notebook's own run (nbgrader, in the student's kernel) cannot be trusted: code in the notebook
can patch the checks. So after nbgrader has graded, every submission is graded again by the
trusted path (`autograder.cli.grade_notebook`: a fresh, limited process per exercise whose
references are computed before any student code runs). Where the two disagree, the trusted score
is written into the gradebook and the submission is flagged with the reason; flags also come from
the grading process (timeouts, crashes, memory), from the notebook itself (locked cells edited
or deleted, nbgrader metadata stripped) and from its code (`autograder.tamper_scan`: tampering
attempts, flagged even when they changed no score). Flags are kept in COURSE/flags.json and exported.
"""

import contextlib
import csv
import hashlib
import json
import os
import resource
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from autograder.cli import grade_notebook
from autograder.exercises import chapter_exercises
from autograder.notebook import cell_source, read_notebook
from autograder.runner import grading_template
from autograder.tamper_scan import scan_notebook

KERNEL_MEMORY_LIMIT = 6 * 1024**3  # per grading process; the machine has 24 GiB and two workers


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (KERNEL_MEMORY_LIMIT, KERNEL_MEMORY_LIMIT))


def submissions(root: Path, chapters: list[str]) -> list[tuple[str, str]]:
    """Every (chapter, student) with a submitted notebook."""
    return sorted(
        (chapter, path.parent.parent.name)
        for chapter in chapters
        for path in (root / "submitted").glob(f"*/{chapter}/{chapter}.ipynb")
    )


def run_nbgrader(
    root: Path, jobs: list[tuple[str, str]], workers: int = 2
) -> dict[tuple[str, str], dict]:
    """nbgrader autograde for every job, in `workers` long-lived processes with a memory limit each."""
    env = dict(
        os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    )
    env.pop("NBGRADER_EXECUTION", None)
    env.update(
        OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1"
    )  # one core per worker
    shards = [jobs[i::workers] for i in range(workers)]
    processes = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "autograder.grading_worker",
                str(root),
                *(f"{c}:{s}" for c, s in shard),
            ],
            cwd=root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            preexec_fn=_limit_memory,
        )
        for shard in shards
        if shard
    ]
    results = {}
    for process in processes:
        stdout, _ = process.communicate()
        for line in stdout.splitlines():
            if line.startswith("{"):
                result = json.loads(line)
                results[(result["chapter"], result["student"])] = result
    for job in jobs:  # a worker that died takes its remaining jobs with it: they count as failed
        results.setdefault(
            job, {"chapter": job[0], "student": job[1], "success": False, "error": "worker died"}
        )
    return results


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


def confirm(
    root: Path, jobs: list[tuple[str, str]], nbgrader_results: dict, workers: int = 2
) -> dict:
    """Grade every submission on the trusted path, overwrite disagreeing scores, flag; return the flags."""
    from nbgrader.api import Gradebook, MissingEntry

    def submitted_path(chapter: str, student: str) -> Path:
        return root / "submitted" / student / chapter / f"{chapter}.ipynb"

    def trusted(job: tuple[str, str]) -> list:
        return grade_notebook(submitted_path(*job), job[0], template)

    manifest_path = root / "collected.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    with grading_template() as template, ThreadPoolExecutor(max_workers=workers) as pool:
        reports = dict(zip(jobs, pool.map(trusted, jobs), strict=True))
    flags: dict[str, dict[str, list[str]]] = {}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        for (chapter, student), chapter_reports in reports.items():
            reasons = []
            result = nbgrader_results.get((chapter, student), {})
            if not result.get("success", False):
                reasons.append(
                    "nbgrader could not grade the notebook (its kernel died or was stopped)"
                )
            released = read_notebook(root / "release" / chapter / f"{chapter}.ipynb")
            path = submitted_path(chapter, student)
            submitted = read_notebook(path)
            reasons += structural_flags(released, submitted)
            findings = scan_notebook(released, submitted)
            reasons += [f"tampering code in {finding}" for _, finding in findings]
            tampered_from = {grade_id for grade_id, _ in findings}
            record = manifest.get(student, {}).get(chapter)
            if record and record["not_copied"]:
                reasons.append(
                    f"handed in files beside the notebook (not graded): {', '.join(record['not_copied'])}"
                )
            if record and hashlib.sha256(path.read_bytes()).hexdigest() != record["sha256"]:
                reasons.append("the submitted notebook changed after it was collected")
            gradebook.update_or_create_student(student)
            try:
                gradebook.find_submission(chapter, student)
            except MissingEntry:
                gradebook.add_submission(chapter, student)
            for report in chapter_reports:
                reasons += [
                    f"{report.exercise}: {flag} in the trusted grader" for flag in report.flags
                ]
                earned = 0 if f"{report.exercise}_code" in tampered_from else report.earned
                if earned != report.earned:
                    reasons.append(f"{report.exercise}: its solution cell tampers, so it earns 0")
                grade = gradebook.find_grade(report.exercise, chapter, chapter, student)
                kernel = grade.auto_score
                if kernel is None or abs(kernel - earned) > 1e-9:
                    if result.get("success", False):
                        reasons.append(
                            f"{report.exercise}: the notebook's own run scored {kernel}, the trusted grader "
                            f"{earned}; the trusted score stands"
                        )
                    grade.manual_score = float(earned)
            notebook = gradebook.find_submission_notebook(chapter, chapter, student)
            notebook.flagged = bool(reasons)
            gradebook.db.commit()
            if reasons:
                flags.setdefault(student, {})[chapter] = reasons
    (root / "flags.json").write_text(json.dumps(flags, indent=2, sort_keys=True))
    return flags


def autograde_class(root: Path, chapters: list[str], workers: int = 2) -> dict:
    """nbgrader autograde on both cores, then trusted confirmation; return the flags."""
    jobs = submissions(root, chapters)
    return confirm(root, jobs, run_nbgrader(root, jobs, workers), workers)


def export_csv(root: Path, to: Path, chapters: list[str]) -> Path:
    """One row per student: points per chapter (autograded exercises), the total, and the flags."""
    from nbgrader.api import Gradebook, MissingEntry

    flags = json.loads((root / "flags.json").read_text()) if (root / "flags.json").exists() else {}
    with (
        Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook,
        to.open("w", newline="") as handle,
    ):
        writer = csv.writer(handle)
        writer.writerow(["student", *chapters, "total", "max_total", "flagged", "flags"])
        maximum = sum(e.points for chapter in chapters for e in chapter_exercises(chapter))
        for student in sorted(s.id for s in gradebook.students):
            points = []
            for chapter in chapters:
                total = 0.0
                for exercise in chapter_exercises(chapter):
                    with contextlib.suppress(MissingEntry):
                        total += (
                            gradebook.find_grade(exercise.name, chapter, chapter, student).score
                            or 0.0
                        )
                points.append(total)
            reasons = [
                f"{chapter}: {reason}"
                for chapter, items in flags.get(student, {}).items()
                for reason in items
            ]
            writer.writerow(
                [
                    student,
                    *points,
                    sum(points),
                    maximum,
                    "yes" if reasons else "",
                    " | ".join(reasons),
                ]
            )
    return to
