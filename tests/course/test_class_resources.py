"""A fork-holding notebook graded beside honest classmates at the same moment costs them nothing.

Real class grading through `python -m autograder.cli.instructor autograde` on the local Dask cluster (two
workers, as root): one student's notebook holds most of its process limit in each of its grading
processes (its copies cannot start, so each exercise gets a process of its own that loads it
again), for seconds at a time, while the other worker grades four honest classmates, whose bigram_counts counts in two threads. Every honest one earns full marks,
unflagged. Before each sandbox had a uid of its own, the holder's processes counted against every
sandbox's limit and the classmates' code could not start its threads.
"""

import json
import os
import threading
import time

import pytest
from conftest import released_course
from support.classes import CHAPTER, course_command, totals
from support.simulate import reference_code, submission

from autograder.course.collect import collect
from autograder.sandbox.host import bwrap

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.geteuid() != 0 or not bwrap.available(), reason="uids of their own need root and bwrap"
    ),
]
HONEST = ["h1", "h2", "h3", "h4"]
HELD = 240
HOLD = """import os, time
for _ in range(1000):  # until the limit refuses: every process its uid may have
    try:
        if os.fork() == 0:
            time.sleep(15)
            os._exit(0)
    except OSError:
        break
time.sleep(4)
"""
THREADED = """from concurrent.futures import ThreadPoolExecutor


def bigram_counts(words, stoi):
    V = len(stoi)

    def count(part):
        counts = np.zeros((V, V), dtype=np.int64)
        for word in part:
            ids = [stoi[ch] for ch in "." + word + "."]
            np.add.at(counts, (ids[:-1], ids[1:]), 1)
        return counts

    with ThreadPoolExecutor(2) as pool:
        return sum(pool.map(count, [words[::2], words[1::2]]), np.zeros((V, V), dtype=np.int64))
"""


def _most_held() -> tuple[list[int], threading.Event, threading.Thread]:
    """Watch the machine: the largest number of processes any one sandbox uid had at once."""
    most = [0]

    def watch() -> None:
        while not stop.is_set():
            counts: dict[int, int] = {}
            for entry in os.scandir("/proc"):
                if not entry.name.isdigit():
                    continue
                try:
                    with open(f"/proc/{entry.name}/status") as status:
                        uid = next(int(x.split()[1]) for x in status if x.startswith("Uid:"))
                except (OSError, StopIteration):
                    continue
                if uid == bwrap.NOBODY or 0 <= uid - bwrap.UID_FIRST < bwrap.UID_COUNT:
                    counts[uid] = counts.get(uid, 0) + 1
            most[0] = max([most[0], *counts.values()])
            time.sleep(0.5)

    stop = threading.Event()
    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return most, stop, thread


def test_a_fork_holding_notebook_beside_honest_classmates(tmp_path):
    course, folder = tmp_path / "course", tmp_path / "submissions"
    released_course(course, CHAPTER)
    released = course / "release" / CHAPTER / f"{CHAPTER}.ipynb"
    code = reference_code(CHAPTER)
    for student in HONEST:
        threaded = {**code, "bigram_counts_code": THREADED}
        submission(released, folder / student / f"{CHAPTER}.ipynb", threaded)
    submission(
        released,
        folder / "a_holder" / f"{CHAPTER}.ipynb",  # sorted first: graded while the others are
        {**code, "bigram_counts_code": HOLD + code["bigram_counts_code"]},
    )
    collect(course, folder)
    most, stop, watcher = _most_held()
    done = course_command("autograde", "--root", str(course), "--seed", "7")
    stop.set()
    watcher.join()
    assert done.returncode == 0, done.stderr[-3000:]
    assert most[0] >= HELD, f"the holder never held its processes ({most[0]})"
    scores = totals(course)
    flags = json.loads((course / "flags.json").read_text())
    for student in HONEST:
        assert scores[student] == 7.0, (student, scores, flags.get(student))
        assert student not in flags, (student, flags[student])
