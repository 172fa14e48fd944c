"""The layout probe: the same call with every array argument handed over as a non-contiguous view.

A plain argument arrives contiguous (the request is pickled), so a transposed or strided array can
only be made here, in the grading process. The probe reports the answer, the arguments as they were
afterwards and which parts of the answer share memory with which argument, for the parent to judge
like a plain call (`autograder.judge.checks.layouts`).
"""

from collections.abc import Callable

import numpy as np

from autograder.sandbox.guest.calls import aliases


def strided(array: np.ndarray) -> np.ndarray:
    """The same values as a non-contiguous view: axes in reverse memory order, every other element
    of a twice-as-long last axis (neither C- nor Fortran-contiguous, strides all positive)."""
    buffer = np.zeros((2 * array.shape[-1], *reversed(array.shape[:-1])), dtype=array.dtype)
    view = buffer.T[..., ::2]
    view[...] = array
    return view


def as_layout(value: object, layout: str) -> object:
    """`value` with the same entries in a non-contiguous layout: "transposed" (Fortran order) or "strided"."""
    if not isinstance(value, np.ndarray) or value.ndim == 0 or value.size < 2:
        return value
    if layout == "transposed":
        return np.asfortranarray(value)  # the transpose of a C-ordered array: F-contiguous
    return strided(value)


def layout_probe(fn: Callable, args: tuple, kwargs: dict, layout: str) -> dict:
    """Call fn with every array argument (and array entry of a dict argument) in `layout`."""
    views = []
    for arg in args:
        if isinstance(arg, dict):
            views.append({key: as_layout(item, layout) for key, item in arg.items()})
        else:
            views.append(as_layout(arg, layout))
    value = fn(*views, **kwargs)
    return {"value": value, "args_after": list(views), "aliases": aliases(value, views)}
