"""One execution per submission: the student's code loads once, each exercise is checked in a copy.

`autograder.judge.runner.check_together` runs a chapter's code once in a grading process (within the
notebook's budget) and checks each exercise in a fork of it (within the exercise's budget). These
tests give it the chapter's references as the student's code plus cells a student might add, and
show that top-level work is paid once, that what one exercise's check does to its copy (poisoned
built-ins, an endless loop, a crash) costs that exercise alone, and that an endless top level is
reported as such.
"""

import os
import resource
import subprocess
import sys
import textwrap

from autograder.judge.exercises import chapter_exercises
from autograder.judge.references import reference_solutions
from autograder.judge.runner import check_together

CHAPTER = "01_bigram_counting"
EXERCISES = chapter_exercises(CHAPTER)
SOLVED = list(reference_solutions(CHAPTER).values())
WORK = textwrap.dedent(
    """
    import time
    started = time.process_time()
    while time.process_time() - started < {seconds}:  # the student's own training, say
        pass
    """
)


def grade(*extra: str, timeout: float = 30.0, load_timeout: float = 300.0) -> dict:
    """The chapter graded with the references as the student's code, then `extra` cells."""
    sources = SOLVED + [textwrap.dedent(cell) for cell in extra]
    reports = check_together(EXERCISES, sources, 1, timeout=timeout, load_timeout=load_timeout)
    return {report.exercise: report for report in reports}


def test_top_level_work_is_paid_once_not_per_exercise():
    # 4 CPU-s of the student's own top-level work against 3 s per exercise: loaded once, before
    # the exercises' budgets start, it costs none of them (each exercise paying it would time out)
    reports = grade(WORK.format(seconds=4), timeout=3.0)
    assert all(report.passed for report in reports.values()), {
        name: report.notes for name, report in reports.items()
    }
    assert not any(report.flags for report in reports.values())


def test_an_exercise_check_costs_that_exercise_alone():
    poisoned = """
    _counts, _nll, _probs = bigram_counts, mean_nll, bigram_probs
    def bigram_counts(*args, **kwargs):
        import builtins
        builtins.len = builtins.sum = None  # the copy that checks bigram_counts, poisoned
        return _counts(*args, **kwargs)
    def bigram_probs(*args, **kwargs):
        import os
        os._exit(7)  # a crash
    def mean_nll(*args, **kwargs):
        while True:  # an endless loop
            pass
    """
    reports = grade(poisoned, timeout=3.0)
    assert not reports["bigram_counts"].passed
    assert not reports["bigram_probs"].passed and "crashed" in reports["bigram_probs"].flags
    assert "exit code 7" in " ".join(reports["bigram_probs"].notes)
    assert not reports["mean_nll"].passed and "timeout" in reports["mean_nll"].flags
    assert "timed out after 3 s" in " ".join(reports["mean_nll"].notes)
    for later in ("perplexity", "interpolated_probs"):  # they call the references, not the above
        assert reports[later].passed, reports[later].notes


def test_an_endless_top_level_is_reported_once_for_every_exercise():
    reports = grade(WORK.format(seconds=60), load_timeout=3.0)
    for report in reports.values():
        assert not report.passed and report.flags == ["timeout"]
        assert "did not finish loading within 3 s" in report.notes[0], report.notes


def test_the_last_exercise_is_answered_in_the_process_itself_and_judged_alike():
    # no copy for the last job: a crash or a loop there is reported as in any other copy
    crash = "def interpolated_probs(*args, **kwargs):\n    import os\n    os._exit(7)\n"
    loop = "def interpolated_probs(*args, **kwargs):\n    while True:\n        pass\n"
    crashed = grade(crash, timeout=3.0)["interpolated_probs"]
    assert "crashed" in crashed.flags and "exit code 7" in " ".join(crashed.notes), crashed.notes
    looped = grade(loop, timeout=3.0)["interpolated_probs"]
    assert looped.flags == ["timeout"] and "timed out after 3 s" in looped.notes[0], looped.notes


def test_what_a_copy_starts_does_not_outlive_its_exercise():
    spawner = """
    import os, time
    _counts, _nll = bigram_counts, mean_nll
    def bigram_counts(*args, **kwargs):
        if os.fork() == 0:  # a process of its own, left running (a pool never closed, say)
            with open("/tmp/spawned", "w") as note:
                note.write(str(os.getpid()))
            while True:
                time.sleep(1)
        while not os.path.exists("/tmp/spawned"):
            time.sleep(0.05)
        return _counts(*args, **kwargs)
    def mean_nll(*args, **kwargs):  # a later exercise's copy looks for it
        pid = open("/tmp/spawned").read()
        if os.path.exists(f"/proc/{pid}") and "zombie" not in open(f"/proc/{pid}/status").read():
            raise RuntimeError("the process bigram_counts started is still running")
        return _nll(*args, **kwargs)
    """
    reports = grade(spawner)
    assert reports["bigram_counts"].passed, reports["bigram_counts"].notes
    assert reports["mean_nll"].passed, [r.hint for r in reports["mean_nll"].results]


def test_the_code_reads_an_empty_stdin():
    # the conversation has pipes of its own: input() at the top level fails at once, noted
    reports = grade("answer = input()\n")
    for report in reports.values():
        assert report.passed and "EOFError" in report.loading[0], report.loading


def test_a_forged_status_is_malformed_and_the_grader_goes_on():
    forged = """
    import os, sys
    from autograder.sandbox.guest.protocol import FRAME
    out = int(sys.argv[2])
    os.write(out, FRAME.pack(b"L", 0) + FRAME.pack(b"S", 3) + b"--5")
    os._exit(0)
    """
    reports = grade(forged)
    assert reports["bigram_counts"].flags == ["malformed answers"], reports["bigram_counts"].notes
    assert not any(report.passed for report in reports.values())


def test_grading_works_when_its_descriptors_are_numbered_past_1023():
    # a busy server or worker holds many sockets: select() refuses such numbers, poll() does not
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        assert held[-1] > 1023, held[-1]  # the premise: the grader's own pipes come after these
        reports = grade()
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert all(report.passed for report in reports.values())


def test_threads_the_code_left_running_cost_no_exercise():
    # an honest demonstration that uses two threads: a fork would keep one and could hang, so each
    # exercise is checked by a process of its own instead (the thread here never ends)
    threads = """
    import threading, time
    threading.Thread(target=lambda: time.sleep(600), daemon=True).start()
    """
    reports = grade(threads, timeout=10.0)
    assert all(report.passed for report in reports.values()), {
        name: report.notes for name, report in reports.items()
    }


def test_a_budget_that_is_not_a_number_of_seconds_is_refused_clearly():
    cases = [("PROOF_LM_NOTEBOOK_SECONDS", bad) for bad in ("five", "0", "-3", "nan")]
    cases += [("PROOF_LM_EXERCISE_SECONDS", bad) for bad in ("", "1e9")]
    for variable, bad in cases:
        done = subprocess.run(
            [sys.executable, "-c", "import autograder.judge.runner"],
            env={**os.environ, variable: bad},
            capture_output=True,
            text=True,
        )
        assert done.returncode != 0
        assert f"ValueError: {variable} must be a number of seconds" in done.stderr
