"""The submission server under a class's load: submissions per minute, upload to feedback (median, p95).

    .venv/bin/python benchmarks/submission_server.py [--students 40] [--workers N]
    .venv/bin/python benchmarks/submission_server.py --arrivals 600   # a class arriving over 10 min
    .venv/bin/python benchmarks/submission_server.py --lone 01_bigram_counting 04_gradients 08_gpt

With `--lone`: one student alone uploads each chapter's solved notebook `--repeat` times, one after
the other, against plain `nbgrader autograde` of the same notebook (unsandboxed, one student, in a
course of its own) as many times, in the same run: both medians and their ratio, per chapter.

Releases chapter 01 (the cheapest to grade) into a scratch course, issues one token per student,
starts `python -m autograder.cli.instructor serve` on loopback (the default local Dask cluster: one worker
per core; every trusted grading process sandboxed), and has every student at once upload
three notebooks, one after the other (`support.load`: one buggy, two correct). It prints the submissions
graded per minute, the time from each upload's 202 to its feedback page (median and 95th
percentile; the student's client polls every 2 s, so each figure includes up to 2 s of polling),
and the slowest `GET /api/health` probe. On a machine shared with other work the figures say more
about the machine than about the server.
"""

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(
    0, str(Path(__file__).resolve().parent.parent / "tests")
)  # support: the tooling shared with the tests

from support.load import (
    CHAPTER,
    POINTS,
    Server,
    class_notebooks,
    mixed_notebooks,
    percentile,
    run_class,
)
from support.simulate import copy_course, reference_code, submission

from autograder.course.directory import chapters
from autograder.course.nbgrader_api import nbgrader_command
from autograder.course.release import release
from autograder.paths import REPO


def main() -> None:
    """Run the load once and print what it measured."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--workers", type=int, help="local cluster workers (default: cores)")
    parser.add_argument(
        "--timeout", type=float, default=3600, help="stop waiting after this many seconds"
    )
    parser.add_argument("--lone", nargs="+", metavar="CHAPTER", help="a lone student's uploads")
    parser.add_argument("--repeat", type=int, default=3, help="uploads per chapter with --lone")
    parser.add_argument(
        "--arrivals",
        type=float,
        metavar="SECONDS",
        help="each upload at a uniformly drawn time within SECONDS of the start, of a chapter "
        "drawn uniformly from all nine (solved notebooks), instead of chapter 01 all at once",
    )
    parser.add_argument("--seed", type=int, default=2026, help="the draws of --arrivals")
    args = parser.parse_args()
    if args.lone:
        lone(args.lone, args.repeat, args.workers)
        return
    students = [f"student{n:02d}" for n in range(args.students)]
    with tempfile.TemporaryDirectory(prefix="proof-lm-bench-server-") as tmp:
        course = Path(tmp, "course")
        arrivals = None
        if args.arrivals:
            rng = random.Random(args.seed)
            release(course, chapters())
            notebooks = mixed_notebooks(course, students, len(POINTS), rng)
            arrivals = {
                student: sorted(rng.uniform(0, args.arrivals) for _ in range(len(POINTS)))
                for student in students
            }
        else:
            notebooks = class_notebooks(release(course, [CHAPTER])[0], students)
        tokens = _tokens(course, *students)
        extra = ["--workers", str(args.workers)] if args.workers else []
        started = time.monotonic()
        with Server(course, Path(tmp, "server.log"), *extra) as server:
            ready = time.monotonic() - started
            load = run_class(server.url, tokens, notebooks, args.timeout, arrivals=arrivals)
    latencies = load.upload_to_feedback()
    graded = sum(1 for s in load.finished.values() if s["status"] == "graded")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end")
    print(f"server ready (health 200) {ready:.1f} s after start")
    print(
        f"{len(load.accepted)} submissions ({args.students} students x {len(POINTS)}) accepted, "
        f"{len(load.refused)} refused, {graded} graded, "
        f"{len(load.finished) - graded} failed, in {load.ended - load.started:.1f} s"
    )
    if len(load.finished) < len(load.accepted):
        print(
            f"STOPPED after {args.timeout:.0f} s with {len(load.accepted) - len(load.finished)} "
            "not graded yet: the figures below cover the graded ones only"
        )
    print(f"submissions per minute: {load.per_minute():.1f}")
    print(
        f"upload to feedback: median {statistics.median(latencies):.1f} s, "
        f"p95 {percentile(latencies, 0.95):.1f} s, max {latencies[-1]:.1f} s"
    )
    if arrivals:  # solved notebooks: each should earn its chapter's full score
        full = sum(s["points"] == s["max_points"] for s in load.finished.values())
        print(f"{full} of {len(load.finished)} earned their chapter's full score")
        # per chapter: the chapter is the notebook's file name
        names = {data: name for items in notebooks.values() for name, data in items}
        by_chapter: dict[str, list[float]] = {}
        for number, seconds in load.feedback.items():
            chapter = names[load.accepted[number][1]].removesuffix(".ipynb")
            by_chapter.setdefault(chapter, []).append(seconds - load.uploaded[number])
        for chapter, values in sorted(by_chapter.items()):
            print(
                f"  {chapter:22s} {len(values):3d} uploads: median "
                f"{statistics.median(values):5.1f} s, max {max(values):5.1f} s"
            )
    print(
        f"GET /api/health: {len(load.health)} probes, median {statistics.median(load.health) * 1000:.0f} ms, "
        f"max {max(load.health) * 1000:.0f} ms, {sum(t >= 1 for t in load.health)} took 1 s or more"
    )


def _tokens(course: Path, *people: str) -> dict[str, str]:
    """One token per person (`course tokens`)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder.cli.instructor",
            "tokens",
            "--root",
            str(course),
            *people,
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(line.split(",", 1) for line in done.stdout.split())


def _upload_to_feedback(client: object, chapter: str, data: bytes) -> tuple[float, float]:
    """Seconds from one upload's 202 to its feedback page (polled every 0.1 s); its points."""
    answer = client.post("/api/submissions", files={"notebook": (f"{chapter}.ipynb", data)})
    answer.raise_for_status()
    start, number = time.monotonic(), answer.json()["id"]
    while (summary := client.get(f"/api/submissions/{number}").json())["status"] in (
        "queued",
        "grading",
    ):
        time.sleep(0.1)
    client.get(f"/api/submissions/{number}/feedback").raise_for_status()
    return time.monotonic() - start, summary["points"]


def _plain(course: Path, chapter: str, data: bytes) -> float:
    """Seconds of plain `nbgrader autograde` of `data` as one student's submission."""
    folder = course / "submitted" / "plain" / chapter
    shutil.rmtree(course / "autograded" / "plain", ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{chapter}.ipynb").write_bytes(data)
    start = time.monotonic()
    nbgrader_command(course, "autograde", chapter, "--student", "plain", "--force")
    return time.monotonic() - start


def lone(names: list[str], repeat: int, workers: int | None) -> None:
    """A lone student's upload to feedback against plain nbgrader, chapter by chapter."""
    with tempfile.TemporaryDirectory(prefix="proof-lm-bench-lone-") as tmp:
        course = Path(tmp, "course")
        released = release(course, names)
        notebooks = {
            path.stem: submission(path, Path(tmp, f"{path.stem}.ipynb"), reference_code(path.stem))
            for path in released
        }
        plain = copy_course(course, Path(tmp, "plain"))
        token = _tokens(course, "alone")["alone"]
        extra = ["--workers", str(workers)] if workers else []
        print(f"machine: {os.cpu_count()} cores; {repeat} runs each, one after the other")
        with (
            Server(course, Path(tmp, "server.log"), *extra) as server,
            server.client(token) as client,
        ):
            for chapter, path in notebooks.items():
                data = path.read_bytes()
                ours = [_upload_to_feedback(client, chapter, data) for _ in range(repeat)]
                theirs = [_plain(plain, chapter, data) for _ in range(repeat)]
                mine, other = statistics.median(s for s, _ in ours), statistics.median(theirs)
                print(
                    f"{chapter}: upload to feedback median {mine:.2f} s "
                    f"(max {max(s for s, _ in ours):.2f}, points {json.dumps(ours[0][1])}); "
                    f"plain nbgrader autograde median {other:.2f} s; ratio {mine / other:.2f}"
                )


if __name__ == "__main__":
    main()
