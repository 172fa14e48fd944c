"""Making the calls a check asks for on a student's function, each reduced to plain data.

The calls and outcomes themselves (`Call`, `Outcome`) are data of the contract in
`autograder.sandbox.guest.protocol`, which the trusted side imports; this module runs student code.
"""

import copy
import importlib
import types
import warnings
from collections.abc import Callable, Mapping

import numpy as np

from autograder.sandbox.guest.plain import NotPlain, to_plain
from autograder.sandbox.guest.protocol import ALIASES_KEPT, BASES_KEPT, Call, Outcome


def run_call(fn: Callable, call: Call, probes: Mapping[str, Callable] | None = None) -> Outcome:
    """Call `fn` as `call` says and reduce everything it returns or raises to plain data.

    `probes` maps a call's probe name to the probe function; the grading process resolves them
    before any student code runs, so that a submission that rebinds a probe module's names changes
    nothing. Without it the probe is imported by name (hidden-test cells, the notebook's process).
    """
    args, kwargs = copy.deepcopy(call.args), copy.deepcopy(call.kwargs)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if call.probe is None:
                value = fn(*args, **kwargs)
            else:
                probe = probes[call.probe] if probes is not None else resolve_probe(call.probe)
                value = probe(fn, *args, **kwargs)
        plain = to_plain(value)  # only exact built-in types and base-class arrays from here on
        if call.probe is not None:  # a probe reports on the arguments it built itself
            return Outcome(value=plain)
        return Outcome(value=plain, args_after=to_plain(list(args)), aliases=aliases(value, args))
    except NotPlain as bad:  # the grader's verdict on the answer, not an error the student raised
        return Outcome(error="NotPlain", error_bases=("NotPlain",), message=str(bad))
    except Exception as error:  # the student's exception is data for the judge
        return error_outcome(error)


def resolve_probe(name: str) -> Callable:
    """The probe function a call names as "module:function"."""
    module, function = name.split(":")
    return getattr(importlib.import_module(module), function)


def _arrays(value: object, where: str) -> list[tuple[str, np.ndarray]]:
    """Every NumPy array inside tuples, lists and dicts of `value`, with where it sits."""
    if isinstance(value, _ndarray):
        return [(where, value)]
    if isinstance(value, tuple | list):
        return [a for i, item in enumerate(value) for a in _arrays(item, f"{where}[{i}]")]
    if isinstance(value, dict):
        return [a for key, item in value.items() for a in _arrays(item, f"{where}[{key!r}]")]
    return []


def aliases(value: object, args: tuple | list) -> list:
    """[where in the answer, argument index] for every array of the answer that shares memory with
    an array argument (or an array inside a list, tuple or dict argument)."""
    found = []
    for where, out in _arrays(value, "the answer"):
        for index, arg in enumerate(args):
            if any(_shares(out, given) for _, given in _arrays(arg, "")):
                found.append([where, index])
                if len(found) == ALIASES_KEPT:  # what the parent reads
                    return found
    return found


def _shares(out: np.ndarray, given: np.ndarray) -> bool:
    """True when two arrays share memory (when that is too hard to prove, when they may)."""
    if not (out.size and given.size and _may_share_memory(out, given)):
        return False
    try:
        return bool(_shares_memory(out, given, max_work=10**6))
    except _TooHard:
        return True


# NumPy's functions as they were when this module was imported (before any student code)
_may_share_memory, _shares_memory = np.may_share_memory, np.shares_memory
_TooHard, _ndarray = np.exceptions.TooHardError, np.ndarray


def sealed_run_call() -> Callable[[Callable, Call, Mapping[str, Callable]], Outcome]:
    """`run_call` with every name of this module it uses bound now, and any exception as data.

    The grading process takes it before the student's code runs: a submission that rebinds NumPy's
    functions or this module's names (the aliasing test, `to_plain`) changes nothing it judges by.
    """
    names = dict(globals())
    for name, value in list(names.items()):
        if isinstance(value, types.FunctionType) and value.__module__ == __name__:
            names[name] = types.FunctionType(
                value.__code__, names, name, value.__defaults__, value.__closure__
            )
    run, as_error = names["run_call"], names["error_outcome"]

    def sealed(fn: Callable, call: Call, probes: Mapping[str, Callable]) -> Outcome:
        try:
            return run(fn, call, probes)
        except BaseException as error:  # e.g. SystemExit from the student's function
            return as_error(error)

    return sealed


def error_outcome(error: BaseException) -> Outcome:
    """An exception as data: its class's name, the names of its bases (nearest first), its message."""
    bases = tuple(cls.__name__ for cls in type(error).__mro__[:BASES_KEPT])  # what the parent reads
    return Outcome(error=type(error).__name__, error_bases=bases, message=str(error)[:500])
