"""The fork server hands every child the right descriptors, however many relays connect at once."""

from concurrent.futures import ThreadPoolExecutor

from conftest import IMPLEMENTATIONS

from autograder.exercises import get_exercise
from autograder.runner import check_source, grading_template


def test_many_concurrent_forked_graders_all_answer():
    exercise = get_exercise("perplexity")
    code = (IMPLEMENTATIONS / "perplexity" / "correct_loop.py").read_text()
    with grading_template() as template, ThreadPoolExecutor(4) as pool:
        reports = list(
            pool.map(lambda _: check_source(exercise, [code], template=template), range(120))
        )
    failures = [(r.flags, r.notes) for r in reports if not r.passed]
    assert failures == []


def test_without_a_fork_server_grading_processes_start_anew(monkeypatch):
    monkeypatch.delattr("os.pidfd_open")  # as on a system without it
    code = (IMPLEMENTATIONS / "perplexity" / "correct_loop.py").read_text()
    with grading_template() as template:
        assert template is None
        assert check_source(get_exercise("perplexity"), [code], template=template).passed
