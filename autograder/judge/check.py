"""The judge's vocabulary: a check is calls to make, then a judge that sees only their plain outcomes."""

from collections.abc import Callable
from dataclasses import dataclass

from autograder.sandbox.guest.protocol import Call, Outcome


class CheckFailed(AssertionError):
    """A check failed; the message is the hint shown to the student."""


@dataclass
class Check:
    """A named check: calls to make, then a judge that raises CheckFailed(hint) on the outcomes."""

    name: str
    calls: list[Call]
    judge: Callable[[list[Outcome]], None]


def describe_error(outcome: Outcome) -> str:
    """A one-line account of an exception the student's code raised."""
    if outcome.error == "NotImplementedError":
        return "raised NotImplementedError: the exercise is not implemented yet"
    if outcome.error == "NotPlain":
        return outcome.message
    return f"raised {outcome.error}: {outcome.message}"
