"""The course's rule for NumPy exercises, checked where a student can see it: before hand-in.

NumPy exercises (chapters 01–07 and 09) are graded in a sandbox without PyTorch and without
arbitrary-precision arithmetic (`decimal`, `mpmath`, `sympy`: a definition computed in 50 digits
never overflows and loses no digit, so it would pass what the exercise asks you to derive): a
function that reaches any of them fails there. `numpy_only`, called by those exercises' visible
tests, says so first.
"""

import types
from collections.abc import Callable

ABSENT = {  # the top-level modules a NumPy exercise's sandbox does not have: what they are
    "torch": "PyTorch",
    "functorch": "PyTorch",
    "decimal": "arbitrary-precision arithmetic",
    "_decimal": "arbitrary-precision arithmetic",
    "_pydecimal": "arbitrary-precision arithmetic",
    "mpmath": "arbitrary-precision arithmetic",
    "sympy": "arbitrary-precision arithmetic",
}
RULE = (
    "NumPy exercises are graded without PyTorch and without arbitrary-precision arithmetic "
    "(the course's rules: NumPy exercises use NumPy only), so it would fail there"
)


def _absent_root(value: object) -> str | None:
    """The ABSENT module that defines `value` (a module, a function, a class, a tensor), or None."""
    if isinstance(value, types.ModuleType):
        root = value.__name__.partition(".")[0]
        return root if root in ABSENT else None
    for owner in (value, type(value)):
        module = getattr(owner, "__module__", None)
        if isinstance(module, str) and module.partition(".")[0] in ABSENT:
            return module.partition(".")[0]
    return None


def _code_names(code: types.CodeType) -> set[str]:
    """The global names `code` and the code nested in it (comprehensions, inner functions) look up."""
    found, stack = set(), [code]
    while stack:
        current = stack.pop()
        found.update(current.co_names)
        stack += [c for c in current.co_consts if isinstance(c, types.CodeType)]
    return found


def absent_reached(fn: Callable) -> dict[str, str]:
    """The names through which `fn` reaches a module of ABSENT, each with what that module is: in
    its globals and closure, and in those of the functions and classes of the student's own that it
    reaches in turn (sorted by name, empty if none)."""
    found: dict[str, str] = {}
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
            if (root := _absent_root(reached)) is not None:
                found[name] = ABSENT[root]
            elif isinstance(reached, type | types.FunctionType | types.MethodType) and (
                getattr(reached, "__module__", None) == getattr(value, "__module__", None)
            ):  # the student's own: followed in turn
                stack.append(reached)
        for n in _code_names(code):  # imports inside
            if n.partition(".")[0] in ABSENT:
                found[n] = ABSENT[n.partition(".")[0]]
    return dict(sorted(found.items()))


def _filled(cell: types.CellType) -> bool:
    """True when a closure cell holds a value (an unassigned one raises on reading)."""
    try:
        cell.cell_contents  # noqa: B018 - reading is the test
    except ValueError:
        return False
    return True


def numpy_only(fn: Callable) -> None:
    """AssertionError naming what `fn` reaches that a NumPy exercise's sandbox does not have (see
    `absent_reached`)."""
    reached = absent_reached(fn)
    if reached:
        name = getattr(fn, "__name__", "this function")
        what = " and ".join(sorted(set(reached.values()), reverse=True))
        raise AssertionError(f"{name} reaches {what} through {', '.join(reached)}: {RULE}")
