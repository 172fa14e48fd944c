"""The course's rule for NumPy exercises, checked where a student can see it: before hand-in.

NumPy exercises (chapters 01–07 and 09) are graded in a sandbox without PyTorch: a function that
reaches PyTorch fails there. `numpy_only`, called by those exercises' visible tests, says so first.
"""

import types
from collections.abc import Callable

TORCH = ("torch", "functorch")
RULE = (
    "NumPy exercises are graded without PyTorch (the course's rules: NumPy exercises use NumPy "
    "only), so it would fail there"
)


def _is_torch(value: object) -> bool:
    """True for PyTorch itself or anything it defines (a module, a function, a class, a tensor)."""
    if isinstance(value, types.ModuleType):
        return value.__name__.partition(".")[0] in TORCH
    for owner in (value, type(value)):
        module = getattr(owner, "__module__", None)
        if isinstance(module, str) and module.partition(".")[0] in TORCH:
            return True
    return False


def _code_names(code: types.CodeType) -> set[str]:
    """The global names `code` and the code nested in it (comprehensions, inner functions) look up."""
    found, stack = set(), [code]
    while stack:
        current = stack.pop()
        found.update(current.co_names)
        stack += [c for c in current.co_consts if isinstance(c, types.CodeType)]
    return found


def pytorch_reached(fn: Callable) -> list[str]:
    """The names through which `fn` reaches PyTorch: in its globals and closure, and in those of the
    functions and classes of the student's own that it reaches in turn (sorted, empty if none)."""
    found: set[str] = set()
    seen: set[int] = set()
    stack: list[object] = [fn]
    while stack:
        value = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, type):  # a class of the student's: its methods
            stack += [getattr(v, "__func__", v) for v in vars(value).values()]
            continue
        value = getattr(value, "__func__", value)  # a bound method: its function
        code = getattr(value, "__code__", None)
        if not isinstance(code, types.CodeType):
            continue
        spaces = getattr(value, "__globals__", {})
        cells = zip(code.co_freevars, getattr(value, "__closure__", None) or (), strict=False)
        named = [(name, cell.cell_contents) for name, cell in cells if _filled(cell)]
        named += [(n, spaces[n]) for n in _code_names(code) if n in spaces]
        for name, reached in named:
            if _is_torch(reached):
                found.add(name)
            elif isinstance(reached, type | types.FunctionType | types.MethodType) and (
                getattr(reached, "__module__", None) == getattr(value, "__module__", None)
            ):  # the student's own: followed in turn
                stack.append(reached)
        found |= {n for n in _code_names(code) if n.partition(".")[0] in TORCH}  # imports inside
    return sorted(found)


def _filled(cell: types.CellType) -> bool:
    """True when a closure cell holds a value (an unassigned one raises on reading)."""
    try:
        cell.cell_contents  # noqa: B018 - reading is the test
    except ValueError:
        return False
    return True


def numpy_only(fn: Callable) -> None:
    """AssertionError naming what reaches PyTorch when `fn` does (see `pytorch_reached`)."""
    reached = pytorch_reached(fn)
    if reached:
        name = getattr(fn, "__name__", "this function")
        raise AssertionError(f"{name} reaches PyTorch through {', '.join(reached)}: {RULE}")
