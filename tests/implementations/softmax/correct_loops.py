"""Moves the axis last and loops over rows with math.exp."""

import math

import numpy as np

EXPECT = "pass"


def softmax(logits, axis=-1):
    moved = np.moveaxis(np.asarray(logits, dtype=float), axis, -1)
    out = np.empty(moved.shape)
    for index in np.ndindex(moved.shape[:-1]):
        row = moved[index]
        top = max(row)
        exps = [math.exp(x - top) for x in row]
        out[index] = [e / sum(exps) for e in exps]
    return np.moveaxis(out, -1, axis)
