"""Moves the axis last and loops over rows with Python floats; keeps float32 for float32 input."""

import math

import numpy as np

EXPECT = "pass"


def softmax(logits, axis=-1):
    moved = np.moveaxis(np.asarray(logits), axis, -1)
    out = np.empty(moved.shape, dtype=np.result_type(moved.dtype, np.float32))
    for index in np.ndindex(moved.shape[:-1]):
        row = [float(v) for v in moved[index]]
        top = max(row)
        exps = [math.exp(v - top) for v in row]
        total = math.fsum(exps)
        out[index] = [e / total for e in exps]
    return np.moveaxis(out, -1, axis)
