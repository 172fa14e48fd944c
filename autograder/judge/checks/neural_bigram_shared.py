"""What the checks of `softmax`, `cross_entropy`, `bigram_loss_and_grad` share.

References are per-row loops in Python floats (math.fsum of exp after shifting by the row's max);
tests/checks/test_references.py proves them against central finite differences.
"""

import math

import numpy as np


def row_softmax(row: np.ndarray) -> list[float]:
    """Softmax of one 1-D row by a loop, shifted by the row's own max."""
    row = [float(x) for x in row]
    top = max(row)
    exps = [math.exp(x - top) for x in row]
    total = math.fsum(exps)
    return [e / total for e in exps]


def reference_softmax(logits: np.ndarray, axis: int) -> np.ndarray:
    """Softmax along `axis` by looping over every 1-D slice."""
    moved = np.moveaxis(np.asarray(logits, dtype=np.float64), axis, -1)
    out = np.empty(moved.shape)
    for index in np.ndindex(moved.shape[:-1]):
        out[index] = row_softmax(moved[index])
    return np.moveaxis(out, -1, axis)


def reference_ce(logits: np.ndarray, targets: np.ndarray) -> float:
    """Mean -log softmax[target] by a loop, with log-sum-exp."""
    total = 0.0
    for row, target in zip(logits, targets, strict=True):
        row = [float(x) for x in row]
        top = max(row)
        total += top + math.log(math.fsum(math.exp(x - top) for x in row)) - row[target]
    return total / len(targets)
