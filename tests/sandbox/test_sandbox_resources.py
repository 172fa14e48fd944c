"""One sandbox's resources are its own.

A submission that holds most of its process limit, or fills its home and /tmp, costs only its own
grading: another sandbox started at the same moment starts its processes and threads and scores
in full; nothing else in the sandbox takes a write. The uids are root's only (without root every
sandbox keeps the instructor's uid; see README: Grading safely).
"""

import json
import os
import subprocess
import sys
import threading
import time

import pytest
from conftest import IMPLEMENTATIONS, REPO

from autograder.judge.exercises import get_exercise
from autograder.judge.runner import check_source
from autograder.sandbox.host import bwrap

CORRECT = (IMPLEMENTATIONS / "perplexity" / "correct_loop.py").read_text()
HELD = 240  # at least this many held (the limit is 256 processes and threads per uid)
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not bwrap.available(), reason="the sandbox needs bwrap"),
]
root_only = pytest.mark.skipif(os.geteuid() != 0, reason="uids of their own need root")

HOLD = """
import os, time
children = []
for _ in range(1000):  # until the limit refuses: every process its uid may have
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    children.append(pid)
time.sleep(10)  # hold them while the classmate is graded (a second or two)
"""

# an honest solution that needs processes and threads of its own
HONEST = """
import os, threading
from concurrent.futures import ThreadPoolExecutor
with ThreadPoolExecutor(8) as pool:
    assert sum(pool.map(lambda x: x, range(32))) == 496
for _ in range(16):
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
"""


def _sandbox_processes() -> int:
    """Processes of the machine whose real uid is a sandbox's (one of the range, or nobody)."""
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/status") as status:
                    uid = next(int(line.split()[1]) for line in status if line.startswith("Uid:"))
            except (OSError, StopIteration):
                continue
            count += uid == bwrap.NOBODY or 0 <= uid - bwrap.UID_FIRST < bwrap.UID_COUNT
    return count


@root_only
def test_two_sandboxes_never_share_a_uid():
    with bwrap.account() as first, bwrap.account() as second:
        assert first.uid != second.uid
        for uid in (first.uid, second.uid):
            assert bwrap.UID_FIRST <= uid < bwrap.UID_FIRST + bwrap.UID_COUNT
    lock_folder = os.lstat(bwrap.UID_LOCKS)
    assert lock_folder.st_uid == 0 and not lock_folder.st_mode & 0o022


CLAIM = """
import sys, time
from autograder.sandbox.host import bwrap
with bwrap.account() as held:
    print(held.uid, flush=True)
    sys.stdin.readline()  # held until the test has heard from every process
"""


@root_only
def test_processes_claiming_at_once_get_different_uids():
    claimers = [
        subprocess.Popen(
            [sys.executable, "-c", CLAIM], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        for _ in range(8)
    ]
    uids = [int(process.stdout.readline()) for process in claimers]
    for process in claimers:
        process.communicate("\n", timeout=30)
    assert len(set(uids)) == len(uids), uids  # each its own, while all are held at once


@root_only
def test_a_sandbox_holding_its_processes_starves_no_other():
    exercise = get_exercise("perplexity")
    held = {}
    holder = threading.Thread(
        target=lambda: held.update(
            report=check_source(exercise, [HOLD + "\n" + CORRECT], timeout=60, seed=1)
        )
    )
    before = _sandbox_processes()
    holder.start()
    deadline = time.monotonic() + 40
    while _sandbox_processes() - before < HELD and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _sandbox_processes() - before >= HELD, "the holder never held its processes"
    honest = check_source(exercise, [HONEST + "\n" + CORRECT], timeout=30, seed=2)
    still_holding = _sandbox_processes() - before >= HELD
    holder.join()
    assert still_holding, "the holder let go before the classmate was graded"
    assert honest.passed and honest.flags == [] and honest.notes == honest.loading == [], honest
    assert held["report"].passed, held["report"].notes  # the holder's own code is right too


@pytest.mark.parametrize("where", ["/home/student", "/tmp", str(REPO)])
def test_a_disk_filler_fills_only_its_own_small_home(where):
    """The home and /tmp fill up at their size; the folders bwrap makes above the project's mounts
    (the code's own when it keeps our uid) take nothing: the sandbox's root is read-only."""
    exercise = get_exercise("perplexity")
    filler = f"""
import json, os
written = 0
chunk = b"x" * (1 << 20)
try:
    for n in range(4096):
        with open({where!r} + f"/fill-{{n}}", "wb") as f:
            for _ in range(32):
                f.write(chunk)
                written += len(chunk)
except OSError as error:
    raise RuntimeError("OBSERVED " + json.dumps({{"written": written, "error": error.errno}}))
raise RuntimeError("OBSERVED " + json.dumps({{"written": written, "error": None}}))
"""
    report = check_source(exercise, [filler + "\n" + CORRECT], timeout=60, seed=1)
    seen = next(json.loads(n.split("OBSERVED ", 1)[1]) for n in report.loading if "OBSERVED" in n)
    if where == str(REPO):
        # the project is read-only there: EROFS, or EACCES first where its folder is not the
        # sandbox's user's to write (the kernel checks the permission before the mount)
        assert seen["written"] == 0 and seen["error"] in (13, 30), seen
        return
    limit = bwrap.Limits().home_bytes if where != "/tmp" else bwrap.Limits().tmp_bytes
    assert seen["error"] == 28, seen  # ENOSPC: the home is full at its size, the host's disk is not
    assert seen["written"] <= limit, seen
