"""Shifts the caller's logits in place: np.asarray(..., dtype=float) does not copy float64 input."""

import numpy as np

EXPECT = "modified"


def softmax(logits, axis=-1):
    z = np.asarray(logits, dtype=float)
    z -= z.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)
