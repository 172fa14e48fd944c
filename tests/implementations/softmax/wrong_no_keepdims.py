"""Forgets keepdims: broadcasting goes along the wrong axis (or fails)."""

import numpy as np

EXPECT = "broadcast along the wrong axis"


def softmax(logits, axis=-1):
    e = np.exp(logits - logits.max(axis=axis))
    return e / e.sum(axis=axis)
