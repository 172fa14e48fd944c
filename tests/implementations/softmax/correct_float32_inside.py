"""Computes in float32 and returns float32 (float32's precision is accepted)."""

import numpy as np

EXPECT = "pass"


def softmax(logits, axis=-1):
    x = np.asarray(logits, dtype=np.float32)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
