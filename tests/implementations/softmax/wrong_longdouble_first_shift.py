"""Shifted by the slice's first logit, in np.longdouble: right while the first is near the largest."""

import numpy as np

EXPECT = "overflow"


def softmax(logits, axis=-1):
    z = np.asarray(logits, dtype=np.longdouble)
    e = np.exp(z - np.take(z, [0], axis=axis))
    return (e / e.sum(axis=axis, keepdims=True)).astype(np.float64)
