"""The verdict types: flags read as their reasons, come from exception classes, and decide the points."""

import json

import pytest

from autograder.judge.report import as_json, text_report
from autograder.judge.verdicts import EVENT_FLAGS, CheckResult, ExerciseReport, Flag, event_flag


def test_a_flag_reads_as_its_reason():
    assert str(Flag.MEMORY) == f"{Flag.MEMORY}" == "memory limit"
    assert f"perplexity: {Flag.EXIT} in the trusted grader" == (
        "perplexity: tried to exit the interpreter in the trusted grader"
    )
    assert Flag("crashed") is Flag.CRASHED


def test_the_json_report_carries_the_reasons():
    report = ExerciseReport("perplexity", 1, [CheckResult("a", True)], flags=[Flag.TIMEOUT])
    data = json.loads(json.dumps(as_json(report)))
    assert data["flags"] == ["timeout"] and data["earned"] == 1
    assert "perplexity: 1/1 points" in text_report(report)


@pytest.mark.parametrize(
    "bases, flag",
    [
        (("MemoryError", "Exception", "BaseException", "object"), Flag.MEMORY),
        (
            ("AnswerKeyError", "RuntimeError", "Exception", "BaseException", "object"),
            Flag.ANSWER_KEY,
        ),
        (("NotPlain",), Flag.NOT_PLAIN),
        (("SystemExit", "BaseException", "object"), Flag.EXIT),
        (("KeyboardInterrupt", "BaseException", "object"), Flag.EXIT),
        (("ValueError", "Exception", "BaseException", "object"), None),
        (("OutOfMemoryError", "MemoryError", "Exception", "BaseException", "object"), Flag.MEMORY),
        ((), None),
    ],
)
def test_the_flag_of_an_error_is_found_by_walking_its_bases(bases, flag):
    assert event_flag(bases) is flag


def test_every_flag_but_the_parents_observations_is_reachable_from_an_event():
    observed_by_the_parent = {Flag.TIMEOUT, Flag.CRASHED, Flag.MALFORMED}
    assert set(Flag) - observed_by_the_parent == set(EVENT_FLAGS.values()) - {None}


@pytest.mark.parametrize("flag", list(Flag))
def test_tampering_flags_cost_the_points_and_the_others_do_not(flag):
    report = ExerciseReport("perplexity", 1, [CheckResult("a", True)], flags=[flag])
    honest = {Flag.MEMORY, Flag.TIMEOUT, Flag.CRASHED}
    assert report.tampered == (flag not in honest)
    assert report.earned == (1 if flag in honest else 0)
