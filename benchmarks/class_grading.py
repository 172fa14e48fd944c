"""Grade a simulated class — plain serial `nbgrader autograde`, then our flow on Dask — and compare.

    .venv/bin/python benchmarks/class_grading.py [--students 30] [--chapters 01_bigram_counting ...]

Builds a course with every chapter released and a class of simulated students (for each chapter:
mostly correct, some with one catalogued bug, some tampering), then on copies of it times
(1) plain nbgrader, one `nbgrader autograde CHAPTER` per chapter, serial, unsandboxed;
(2) our flow (`autograder.course.autograde.autograde`) on the default local Dask cluster (one
worker per core, every trusted grading process in the OS sandbox; nbgrader records, it does not
execute);
(3) the same on a separate `dask scheduler` with two `dask worker` processes on 127.0.0.1.
It checks that the grades agree except where our flow caught tampering or charged one bug once,
and prints the times, the ratio, the time per submission, the scheduler's overhead per task, and
what the sandbox costs per notebook (one student's notebooks graded with and without it).
"""

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(
    0, str(Path(__file__).resolve().parent.parent / "tests")
)  # support: the tooling shared with the tests

from support.cluster import loopback_cluster
from support.simulate import copy_course, reference_code, submission

from autograder.course.autograde import AutogradeRun, autograde
from autograder.course.collect import collect
from autograder.course.directory import chapters
from autograder.course.nbgrader_api import nbgrader_command
from autograder.course.release import release
from autograder.judge.exercises import chapter_exercises
from autograder.judge.runner import grade_notebook

CATALOGUE = Path(__file__).resolve().parent.parent / "tests" / "implementations"
TAMPERS = {
    "patches NumPy's comparisons": "import numpy as np\nnp.allclose = np.isclose = np.array_equal = lambda *a, **k: True\n",
    "replaces the checker": "import autograder.kernel\nautograder.kernel.run_checks = lambda *a, **k: None\n",
    "blanks later cells": "get_ipython().input_transformers_post.append(lambda lines: [])\n",
}


def build_class(root: Path, folder: Path, students: int, names: list[str], seed: int) -> dict:
    """Write every student's notebooks; return what each (student, chapter) is: correct, bug or tamper."""
    rng = random.Random(seed)
    kinds = {}
    for number in range(students):
        student = f"student{number:03d}"
        for chapter in names:
            code = reference_code(chapter)
            exercise = rng.choice(chapter_exercises(chapter)).name
            roll = rng.random()
            if roll < 0.25:  # one plausible bug
                wrong = rng.choice(sorted((CATALOGUE / exercise).glob("wrong_*.py")))
                code[f"{exercise}_code"] = wrong.read_text()
                kinds[(student, chapter)] = f"bug {wrong.stem} in {exercise}"
            elif roll < 0.4:  # tampering, with a wrong answer behind it
                label, patch = rng.choice(sorted(TAMPERS.items()))
                wrong = rng.choice(sorted((CATALOGUE / exercise).glob("wrong_*.py")))
                code[f"{exercise}_code"] = patch + wrong.read_text()
                kinds[(student, chapter)] = f"tamper: {label} ({exercise})"
            else:
                kinds[(student, chapter)] = "correct"
            release_path = root / "release" / chapter / f"{chapter}.ipynb"
            submission(release_path, folder / student / f"{chapter}.ipynb", code)
    return kinds


def scores(root: Path, names: list[str]) -> dict[tuple[str, str, str], float]:
    """Every exercise score in a gradebook."""
    from nbgrader.api import Gradebook, MissingEntry

    out = {}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        for student in (s.id for s in gradebook.students):
            for chapter in names:
                for exercise in chapter_exercises(chapter):
                    try:
                        out[(student, chapter, exercise.name)] = gradebook.find_grade(
                            exercise.name, chapter, chapter, student
                        ).score
                    except MissingEntry:
                        out[(student, chapter, exercise.name)] = None
    return out


def per_task(outcome: AutogradeRun, workers: int) -> str:
    """Time per submission, and the overhead per task beyond the tasks' own time on their workers."""
    count = len(outcome.graded)
    busy = sum(graded.seconds for graded in outcome.graded)
    overhead = (outcome.seconds * workers - busy) / count
    return (
        f"{outcome.seconds / count:.2f} s per submission; tasks {busy / count:.2f} s each on their "
        f"worker; overhead per task (cluster start, scheduling, recording) {overhead:.2f} s"
    )


def sandbox_cost(course: Path, scratch: Path, names: list[str], seed: int) -> None:
    """One student's notebooks with the sandbox and without: per notebook (whole tasks) and per exercise."""
    student = sorted(p.name for p in (course / "submitted").iterdir())[0]
    per_task, per_exercise = {}, {}
    exercises = sum(len(chapter_exercises(chapter)) for chapter in names)
    for sandboxed in (True, False):
        copy = copy_course(course, scratch / f"cost-{sandboxed}", {student})
        outcome = autograde(copy, names, sandboxed=sandboxed, seed=seed, workers=1)
        per_task[sandboxed] = sum(g.seconds for g in outcome.graded) / len(outcome.graded)
        start = time.perf_counter()
        for chapter in names:
            grade_notebook(
                copy / "submitted" / student / chapter / f"{chapter}.ipynb",
                chapter,
                seed,
                sandboxed,
            )
        per_exercise[sandboxed] = (time.perf_counter() - start) / exercises
    print(
        f"sandbox cost per notebook (one worker, {student}'s {len(names)} notebooks): "
        f"{per_task[True]:.2f} s sandboxed vs {per_task[False]:.2f} s not "
        f"({per_task[True] - per_task[False]:+.2f} s)"
    )
    print(
        f"sandbox cost per exercise (trusted grader, {exercises} exercises, 2 threads): "
        f"{per_exercise[True]:.3f} s vs {per_exercise[False]:.3f} s "
        f"({per_exercise[True] - per_exercise[False]:+.3f} s)"
    )


def main() -> None:
    """Build, grade three ways, compare, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--chapters", nargs="*", default=chapters())
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="proof-lm-class-") as scratch:
        plain, folder = Path(scratch, "plain"), Path(scratch, "submissions")
        release(plain, args.chapters)
        kinds = build_class(plain, folder, args.students, args.chapters, args.seed)
        collect(plain, folder)
        ours = copy_course(plain, Path(scratch, "ours"))
        remote = copy_course(plain, Path(scratch, "remote"))
        count = len(kinds)
        print(
            f"{args.students} students x {len(args.chapters)} chapters = {count} submissions "
            f"({sum(k == 'correct' for k in kinds.values())} correct, "
            f"{sum(k.startswith('bug') for k in kinds.values())} buggy, "
            f"{sum(k.startswith('tamper') for k in kinds.values())} tampering)"
        )

        start = time.perf_counter()
        for chapter in args.chapters:
            nbgrader_command(plain, "autograde", chapter, "--force")
        serial = time.perf_counter() - start
        print(
            f"plain nbgrader, serial:      {serial:8.1f} s  ({serial / count:.1f} s per submission)"
        )

        workers = os.cpu_count() or 1
        outcome = autograde(ours, args.chapters, seed=args.seed)
        flow, flags = outcome.seconds, outcome.flags
        print(f"our flow, local Dask cluster ({workers} workers), sandboxed: {flow:8.1f} s")
        print(f"  {per_task(outcome, workers)}")
        print(
            f"ratio (plain / ours): {serial / flow:.2f}x; a class of 100 full submissions would take about "
            f"{flow / args.students * 100 / 60:.0f} min with our flow, {serial / args.students * 100 / 60:.0f} min plain"
        )
        with loopback_cluster(workers=2) as (address, _):
            far = autograde(remote, args.chapters, seed=args.seed, scheduler=address)
        print(f"our flow, separate scheduler + 2 workers on 127.0.0.1: {far.seconds:8.1f} s")
        print(f"  {per_task(far, 2)}")
        print(
            f"  the same grades as the local cluster: {scores(remote, args.chapters) == scores(ours, args.chapters)}"
        )

        plain_scores, our_scores = scores(plain, args.chapters), scores(ours, args.chapters)
        # a challenge's cell is worth 0 points in the source notebook: plain nbgrader scores it 0,
        # our flow records what it earns as nbgrader's extra credit; compared apart
        challenges = {
            e.name for chapter in args.chapters for e in chapter_exercises(chapter) if e.extra
        }
        credited = [key for key in our_scores if key[2] in challenges and our_scores[key]]
        print(
            f"challenges: {len(credited)} of {sum(k[2] in challenges for k in our_scores)} earn extra "
            f"credit in our flow (plain nbgrader scores every challenge 0: its cells carry 0 points)"
        )
        differing = {
            key
            for key in our_scores
            if key[2] not in challenges and plain_scores.get(key) != our_scores[key]
        }
        flagged = {(student, chapter) for student, items in flags.items() for chapter in items}
        # plain nbgrader's run charges a bug twice when another exercise calls the buggy function;
        # the trusted grader checks each exercise with the others' references (one bug, one exercise)
        one_bug = {
            key
            for key in differing
            if kinds[(key[0], key[1])].startswith("bug")
            and not kinds[(key[0], key[1])].endswith(f" in {key[2]}")
            and (our_scores[key] or 0) > (plain_scores.get(key) or 0)
        }
        unexplained = {key for key in differing - one_bug if (key[0], key[1]) not in flagged}
        tamper_caught = {
            k for k, kind in kinds.items() if kind.startswith("tamper") and k in flagged
        }
        honest_flagged = {
            k for k, kind in kinds.items() if not kind.startswith("tamper") and k in flagged
        }
        print(
            f"grades differing: {len(differing)}: {len(one_bug)} where the notebook charged one bug "
            f"twice (our flow: one bug, one exercise), the rest on flagged submissions: {not unexplained}"
        )
        print(
            f"tampering submissions flagged: {len(tamper_caught)} of {sum(k.startswith('tamper') for k in kinds.values())}; "
            f"honest or buggy submissions flagged: {len(honest_flagged)}"
        )
        for key in sorted(honest_flagged):
            print("  FLAGGED", key, kinds[key], "|", " | ".join(flags[key[0]][key[1]]))
        sandbox_cost(plain, Path(scratch), args.chapters, args.seed)
        for key in sorted(unexplained):
            print(
                "  UNEXPLAINED",
                key,
                plain_scores.get(key),
                our_scores[key],
                kinds[(key[0], key[1])],
            )


if __name__ == "__main__":
    main()
