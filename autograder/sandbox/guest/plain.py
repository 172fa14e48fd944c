"""Answers as plain data: only NumPy arrays of numbers, numbers, strings, None, and lists/tuples/dicts of them."""

import json
import math
import re
import struct

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
        item = value.item()  # a longdouble scalar's item is itself: a float, rounded
        return float(item) if isinstance(item, np.floating) else item
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


def count_arrays(value: object) -> int:
    """How many arrays a plain value holds."""
    if isinstance(value, np.ndarray):
        return 1
    if isinstance(value, list | tuple):
        return sum(count_arrays(item) for item in value)
    if isinstance(value, dict):
        return sum(count_arrays(item) for item in value.values())
    return 0


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
    """Invert `encode`, taking each array out of `arrays` (KeyError for one named twice)."""
    if isinstance(tree, list):
        return [decode(item, arrays) for item in tree]
    if isinstance(tree, dict):
        if "__array__" in tree:  # each array once: encode never names one twice
            return np.asarray(arrays.pop(tree["__array__"]))
        if "__float__" in tree:
            return float(tree["__float__"])
        if "__tuple__" in tree:
            return tuple(decode(item, arrays) for item in tree["__tuple__"])
        return {key: decode(item, arrays) for key, item in tree["__dict__"].items()}
    return tree


def dumps(value: object) -> tuple[str, dict[str, np.ndarray]]:
    """Serialise a plain value as (JSON text, its arrays by key)."""
    arrays: dict[str, np.ndarray] = {}
    return json.dumps(encode(value, arrays)), arrays


# The answers' bytes: LENGTHS (of the structure and of the arrays' list), the structure (JSON, its
# arrays named "a0", "a1", … in order), the arrays' list (JSON: [dtype, shape] of each), then the
# arrays' bytes one after another, C order. Reading it is linear in its bytes: no archive, no
# header for a parser to chew on, and every array's size is checked against the bytes it has.
LENGTHS = struct.Struct(">QQ")
DTYPE = re.compile(r"\|b1|[<>|][iu]1|[<>][iu](2|4|8)|[<>]f(2|4|8|16)")  # NUMERIC_KINDS only
MAX_DIMS = 32
# Each costs the reader about a microsecond and 150 bytes: 1.4 million empty lists in 4 MB held the
# shared lock 1.1 s and took 200 MB (red team). The grader's own arguments hold at most about 1,100
# in a job (sgd_train's), and honest answers are arrays, numbers and short lists of them.
MAX_CONTAINERS = 200_000
SPEC_BYTES = 100  # of an array's [dtype, shape] in the list (`["<f8", [3, 4]], ` is 19)


def pack(value: object) -> bytes:
    """A plain value as the answers' bytes (see LENGTHS)."""
    text, arrays = dumps(value)
    ordered = [arrays[f"a{i}"] for i in range(len(arrays))]  # tobytes() writes C order
    specs = json.dumps([[a.dtype.str, list(a.shape)] for a in ordered]).encode()
    tree = text.encode()
    return b"".join(
        [LENGTHS.pack(len(tree), len(specs)), tree, specs, *(a.tobytes() for a in ordered)]
    )


def unpack(data: bytes, max_arrays: int, json_limit: int) -> object:
    """Invert `pack`, trusting nothing: ValueError unless the bytes are exactly such answers with at
    most `max_arrays` arrays and structures of at most `json_limit` bytes."""
    if len(data) < LENGTHS.size:
        raise ValueError("answers shorter than their header")
    tree_size, specs_size = LENGTHS.unpack_from(data)
    if tree_size > json_limit or specs_size > SPEC_BYTES * max_arrays + 2:
        raise ValueError(f"{max(tree_size, specs_size)} bytes of answers' structure")
    start = LENGTHS.size + tree_size + specs_size
    if start > len(data):
        raise ValueError("answers shorter than their structure")
    tree = data[LENGTHS.size : LENGTHS.size + tree_size]
    if tree.count(b"[") + tree.count(b"{") > MAX_CONTAINERS:
        raise ValueError(f"more than {MAX_CONTAINERS} lists and dicts in the answers' structure")
    specs = json.loads(data[LENGTHS.size + tree_size : start])
    if not isinstance(specs, list) or len(specs) > max_arrays:
        raise ValueError(f"more than {max_arrays} arrays, or no list of them")
    arrays, offset = {}, start
    for index, spec in enumerate(specs):
        if not (isinstance(spec, list) and len(spec) == 2 and isinstance(spec[0], str)):
            raise ValueError("an array's description is not [dtype, shape]")
        kind, shape = spec
        if not (DTYPE.fullmatch(kind) and isinstance(shape, list) and len(shape) <= MAX_DIMS):
            raise ValueError("an array of a kind that is no answer's")
        if not all(type(n) is int and n >= 0 for n in shape):
            raise ValueError("an array of a shape that is no shape")
        dtype = np.dtype(kind)
        size = math.prod(shape)
        end = offset + size * dtype.itemsize
        if end > len(data):
            raise ValueError("answers shorter than their arrays")
        flat = np.frombuffer(data, dtype=dtype, count=size, offset=offset)
        arrays[f"a{index}"] = flat.reshape(shape).copy()
        offset = end
    if offset != len(data):
        raise ValueError("answers longer than their arrays")
    value = decode(json.loads(tree), arrays)
    if arrays:
        raise ValueError(f"{len(arrays)} arrays the structure never names")
    return value
