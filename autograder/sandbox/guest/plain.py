"""Answers as plain data: only NumPy arrays of numbers, numbers, strings, None, and lists/tuples/dicts of them."""

import json
import math

import numpy as np

NUMERIC_KINDS = "biuf"


class NotPlain(TypeError):
    """An answer that is not plain data (an object we will not trust to compare honestly)."""


def to_plain(value: object, where: str = "the answer") -> object:
    """A fresh copy of `value` built only from exact built-in types and base-class NumPy arrays."""
    kind = type(value)
    if value is None or kind in (bool, int, str):
        return value
    if kind is float:
        return float(value)
    if kind is np.ndarray:
        if value.dtype.kind not in NUMERIC_KINDS:
            raise NotPlain(f"{where} is an array of dtype {value.dtype}; expected numbers")
        return np.array(value, copy=True, subok=False)
    if isinstance(value, np.generic) and type(value).__module__ == "numpy":
        if value.dtype.kind not in NUMERIC_KINDS:
            raise NotPlain(f"{where} is a NumPy {value.dtype} scalar; expected a number")
        return value.item()
    if kind in (list, tuple):
        return kind(to_plain(item, f"{where}[{i}]") for i, item in enumerate(value))
    if kind is dict:
        if not all(type(key) is str for key in value):
            raise NotPlain(f"{where} is a dict with non-string keys")
        return {key: to_plain(item, f"{where}[{key!r}]") for key, item in value.items()}
    raise NotPlain(
        f"{where} is a {kind.__module__}.{kind.__qualname__} object; "
        "expected a NumPy array, a number, or a tuple/dict of them"
    )


def encode(value: object, arrays: dict[str, np.ndarray]) -> object:
    """A JSON-able tree for a plain value; arrays are moved into `arrays` and referenced by key."""
    if isinstance(value, np.ndarray):
        key = f"a{len(arrays)}"
        arrays[key] = value
        return {"__array__": key}
    if isinstance(value, float) and not math.isfinite(value):
        return {"__float__": repr(value)}
    if isinstance(value, tuple):
        return {"__tuple__": [encode(item, arrays) for item in value]}
    if isinstance(value, list):
        return [encode(item, arrays) for item in value]
    if isinstance(value, dict):
        return {"__dict__": {key: encode(item, arrays) for key, item in value.items()}}
    return value


def decode(tree: object, arrays: dict[str, np.ndarray]) -> object:
    """Invert `encode`, rebuilding arrays from `arrays` (loaded with allow_pickle=False)."""
    if isinstance(tree, list):
        return [decode(item, arrays) for item in tree]
    if isinstance(tree, dict):
        if "__array__" in tree:
            return np.asarray(arrays[tree["__array__"]])
        if "__float__" in tree:
            return float(tree["__float__"])
        if "__tuple__" in tree:
            return tuple(decode(item, arrays) for item in tree["__tuple__"])
        return {key: decode(item, arrays) for key, item in tree["__dict__"].items()}
    return tree


def dumps(value: object) -> tuple[str, dict[str, np.ndarray]]:
    """Serialise a plain value as (JSON text, arrays to store with np.savez)."""
    arrays: dict[str, np.ndarray] = {}
    return json.dumps(encode(value, arrays)), arrays
