"""The course's one timed check (bpe_train_fast), attacked as a student who has read our code would.

The CPU time is the kernel's count for the whole sandbox, read by the trusted side with wait4
(`autograder.sandbox.host.grading_process`): these tests show that work done anywhere inside is counted,
except in a process still running when the sandbox ends (the kernel reaps it uncounted), that a
timed run therefore cannot start a process or thread, and that no clock the code can reach changes
the verdict.
"""

import json
import textwrap

from conftest import IMPLEMENTATIONS

from autograder.judge import mounted
from autograder.judge.exercises import get_exercise
from autograder.judge.outcomes import read_answers
from autograder.judge.runner import check_function, check_source
from autograder.judge.session import GRADING_LIMITS, job, opening
from autograder.sandbox.host.grading_process import run_session

EXERCISE = get_exercise("bpe_train_fast")
SLOW = (IMPLEMENTATIONS / "bpe_train_fast" / "wrong_recount_every_merge.py").read_text()
WORK = "sum(i * i for i in range(30_000_000))"  # about 1.5 CPU-s here (12 million: 0.58 s, too near 0.6)


def _run(code: str, one_process: bool = False):
    """Run `code` as the top level of a submission in a grading sandbox; the run and its answers."""
    sources = [textwrap.dedent(code)]
    run = run_session(
        {**opening([EXERCISE], sources, [[]]), "one_process": one_process},
        [job(EXERCISE, [])],
        EXERCISE.name,
        60,
        60,
        True,
        GRADING_LIMITS,
        mounted.mounts(EXERCISE.name),
    )
    return run, read_answers(run.answers[0], 0)


def test_work_done_anywhere_in_the_sandbox_is_counted():
    # (no other program starts in a NumPy exercise's sandbox: tests/security/test_extended_precision.py)
    idle, _ = _run("")
    ways = {
        "this process": f"x = {WORK}",
        "a thread": f"import threading\nt = threading.Thread(target=lambda: {WORK})\nt.start()\nt.join()",
        "a child it waits for": f"import os\nif os.fork() == 0:\n    {WORK}\n    os._exit(0)\nos.wait()",
    }
    alone, _ = _run(ways["this process"])
    assert alone.cpu_seconds > idle.cpu_seconds + 0.6, (alone.cpu_seconds, idle.cpu_seconds)
    work = alone.cpu_seconds - idle.cpu_seconds
    for way, code in ways.items():
        run, answers = _run(code)
        assert run.returncode == 0 and not answers.problems, (way, answers.problems)
        assert run.cpu_seconds > idle.cpu_seconds + 0.5 * work, (way, run.cpu_seconds, work)


def test_a_timed_run_can_start_no_process_or_thread():
    """Work in a process still alive when the sandbox ends is never counted (the kernel reaps it
    uncounted), so a timed run is refused every way to start one, on every system-call ABI."""
    _, answers = _run(
        """
        import ctypes, json, mmap, os, platform, subprocess, sys, threading
        libc = ctypes.CDLL(None, use_errno=True)
        seen = {}
        def attempt(name, action):
            try:
                result = action()
                seen[name] = "started" if result is None or result > 0 else result
                if result == 0:  # a child that got through: leave at once
                    os._exit(0)
            except Exception as error:
                seen[name] = type(error).__name__
        attempt("os.fork", os.fork)
        attempt("thread", lambda: threading.Thread(target=lambda: None).start())
        attempt("subprocess", lambda: subprocess.run([sys.executable, "-c", "pass"]) and None)
        if platform.machine() == "x86_64":
            attempt("clone", lambda: libc.syscall(56, 17, 0, 0, 0, 0))  # SIGCHLD: a fork
            attempt("fork", lambda: libc.syscall(57))
            attempt("clone3", lambda: libc.syscall(435, 0, 0))
            def i386(number):  # mov eax, number; int 0x80; ret
                code = bytes([0xB8]) + number.to_bytes(4, "little") + bytes([0xCD, 0x80, 0xC3])
                page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
                page.write(code)
                return ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))()
            attempt("i386 fork", lambda: i386(2))
            seen["i386 getpid works"] = i386(20) == os.getpid()
        raise RuntimeError("OBSERVED " + json.dumps(seen))
        """,
        one_process=True,
    )
    (problem,) = answers.problems
    seen = json.loads(problem.outcome.message.split("OBSERVED ", 1)[1])
    assert seen.pop("i386 getpid works", True) is True, "the i386 path must really reach the kernel"
    assert seen["os.fork"] == "PermissionError" and seen["thread"] == "RuntimeError", seen
    assert seen["subprocess"] == "PermissionError", seen
    raw = {
        name: result
        for name, result in seen.items()
        if name not in {"os.fork", "thread", "subprocess"}
    }
    assert all(result == -1 for result in raw.values()), seen  # -EPERM from the filter


def test_a_slow_submission_that_stops_every_clock_it_can_reach_is_still_too_slow():
    forged = SLOW + textwrap.dedent(
        """
        import os, resource, time
        time.process_time = time.perf_counter = time.time = time.monotonic = lambda: 0.0
        time.process_time_ns = time.perf_counter_ns = time.time_ns = lambda: 0
        os.times = lambda: os.times_result((0.0, 0.0, 0.0, 0.0, 0.0))
        resource.getrusage = lambda who: None
        """
    )
    report = check_source(EXERCISE, [forged], seed=3)
    (speed,) = [result for result in report.results if result.name.startswith("fast enough")]
    assert not speed.passed and speed.hint.startswith("too slow"), speed.hint


def test_a_slow_submission_cannot_hand_its_work_to_a_process_left_running():
    """The naive training done in a forked child that answers through a pipe and stays alive:
    outside a timed run its CPU time would be lost when the sandbox ends; in one, it cannot start."""
    handed = SLOW.replace("def bpe_train_fast(", "def _slow(") + textwrap.dedent(
        """
        import os, pickle, time

        def bpe_train_fast(text, vocab_size):
            if vocab_size < 256:
                raise ValueError("vocab_size must be at least 256")
            read, write = os.pipe()
            if os.fork() == 0:
                os.write(write, pickle.dumps(_slow(text, vocab_size)))
                os.close(write)
                time.sleep(600)
            os.close(write)
            chunks = []
            while chunk := os.read(read, 1 << 16):
                chunks.append(chunk)
            return pickle.loads(b"".join(chunks))
        """
    )
    report = check_source(EXERCISE, [handed], seed=4)
    (speed,) = [result for result in report.results if result.name.startswith("fast enough")]
    assert not speed.passed and "PermissionError" in speed.hint, speed.hint


def test_the_hidden_test_cell_times_against_the_library_in_the_students_kernel():
    namespace: dict = {}
    exec((IMPLEMENTATIONS / "bpe_train_fast" / "correct_linked_heap.py").read_text(), namespace)
    report = check_function(EXERCISE, namespace["bpe_train_fast"], seed=5)
    assert report.passed and report.results[-1].name.startswith("fast enough"), report.results


def test_a_timed_run_that_waits_is_as_slow_as_one_that_computes():
    """Work done elsewhere (another sandbox running at the same time, say) has to be waited for:
    the wall clock is held to the same ratio as the CPU time, so a right answer that arrives late
    fails however little CPU time the run itself used. The wait is longer than any limit the
    reference's times can set (a loaded machine makes the reference slow on the clock too), so the
    run is over the line or stopped at its timeout, and both are "too slow on the clock"."""
    fast = (IMPLEMENTATIONS / "bpe_train_fast" / "correct_linked_heap.py").read_text()
    waiting = fast.replace("def bpe_train_fast(", "def _fast(") + textwrap.dedent(
        """
        import time

        def bpe_train_fast(text, vocab_size):
            if len(text) > 100_000:  # the timed call only: as if waiting for a helper
                time.sleep(600)
            return _fast(text, vocab_size)
        """
    )
    report = check_source(EXERCISE, [waiting], seed=6)
    (speed,) = [result for result in report.results if result.name.startswith("fast enough")]
    assert not speed.passed and speed.hint.startswith("too slow on the clock"), speed.hint
