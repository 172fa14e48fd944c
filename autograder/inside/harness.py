"""Checks as data: the calls to make on a student's function, and judges that see only plain answers."""

import copy
import importlib
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from autograder.inside.plain import NotPlain, to_plain


@dataclass
class Call:
    """One call of the student's function: plain arguments, or a named probe that builds them."""

    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    probe: str | None = None  # "module:function" run as probe(fn, *args, **kwargs) -> plain data


@dataclass
class Outcome:
    """What one call produced: a plain value or an error, and the arguments as they were afterwards."""

    value: object = None
    error: str | None = None  # exception class name
    error_bases: tuple[str, ...] = ()
    message: str = ""
    args_after: object = None
    aliased: str = ""  # "the answer[1] is argument 2 or a view of it", when an answer shares memory
    aliases: list = field(default_factory=list)  # [where, argument index]: memory shared

    def raised(self, name: str) -> bool:
        """True when the call raised `name` or a subclass of it."""
        return self.error is not None and name in self.error_bases


class CheckFailed(AssertionError):
    """A check failed; the message is the hint shown to the student."""


@dataclass
class Check:
    """A named check: calls to make, then a judge that raises CheckFailed(hint) on the outcomes."""

    name: str
    calls: list[Call]
    judge: Callable[[list[Outcome]], None]


def run_call(fn: Callable, call: Call) -> Outcome:
    """Call `fn` as `call` says and reduce everything it returns or raises to plain data."""
    args, kwargs = copy.deepcopy(call.args), copy.deepcopy(call.kwargs)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if call.probe is None:
                value = fn(*args, **kwargs)
            else:
                module, name = call.probe.split(":")
                value = getattr(importlib.import_module(module), name)(fn, *args, **kwargs)
        plain = to_plain(value)  # only exact built-in types and base-class arrays from here on
        return Outcome(
            value=plain,
            args_after=to_plain(list(args)),
            aliased=aliases(value, args),
            aliases=shared_memory(value, args) if call.probe is None else [],
        )
    except NotPlain as bad:  # the grader's verdict on the answer, not an error the student raised
        return Outcome(error="NotPlain", error_bases=("NotPlain",), message=str(bad))
    except Exception as error:  # the student's exception is data for the judge
        return error_outcome(error)


def _arrays(value: object, where: str) -> list[tuple[str, np.ndarray]]:
    """Every NumPy array inside tuples, lists and dicts of `value`, with where it sits."""
    if isinstance(value, np.ndarray):
        return [(where, value)]
    if isinstance(value, tuple | list):
        return [a for i, item in enumerate(value) for a in _arrays(item, f"{where}[{i}]")]
    if isinstance(value, dict):
        return [a for key, item in value.items() for a in _arrays(item, f"{where}[{key!r}]")]
    return []


def aliases(value: object, args: tuple) -> str:
    """Which part of the answer shares memory with which argument ("" when none does)."""
    inputs = [a for i, arg in enumerate(args) for a in _arrays(arg, f"argument {i + 1}")]
    for where, out in _arrays(value, "the answer"):
        for label, given in inputs:
            if out.size and given.size and np.may_share_memory(out, given):
                try:
                    shared = np.shares_memory(out, given, max_work=10**6)
                except np.exceptions.TooHardError:
                    shared = True
                if shared:
                    return f"{where} is {label} or a view of it"
    return ""


def shared_memory(value: object, args: tuple, where: str = "the answer") -> list:
    """[where, argument index] for every array in the answer that shares memory with an argument."""
    if type(value) in (list, tuple):
        return [
            a for i, item in enumerate(value) for a in shared_memory(item, args, f"{where}[{i}]")
        ]
    if type(value) is dict:
        return [
            a for key, item in value.items() for a in shared_memory(item, args, f"{where}[{key!r}]")
        ]
    if not isinstance(value, np.ndarray):
        return []
    return [
        [where, index]
        for index, arg in enumerate(args)
        if isinstance(arg, np.ndarray) and np.may_share_memory(value, arg)
    ]


def error_outcome(error: BaseException) -> Outcome:
    """An exception as data: its class's name, the names of its bases (nearest first), its message."""
    bases = tuple(cls.__name__ for cls in type(error).__mro__)
    return Outcome(error=type(error).__name__, error_bases=bases, message=str(error)[:500])


def describe_error(outcome: Outcome) -> str:
    """A one-line account of an exception the student's code raised."""
    if outcome.error == "NotImplementedError":
        return "raised NotImplementedError: the exercise is not implemented yet"
    if outcome.error == "NotPlain":
        return outcome.message
    return f"raised {outcome.error}: {outcome.message}"
