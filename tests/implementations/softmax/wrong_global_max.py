"""Subtracts the max of the whole array."""

import numpy as np

EXPECT = "each slice's own"


def softmax(logits, axis=-1):
    e = np.exp(logits - np.max(logits))
    return e / e.sum(axis=axis, keepdims=True)
