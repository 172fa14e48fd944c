"""The definition as read, in np.longdouble: a wider float moves the overflow, it does not remove it."""

import numpy as np

EXPECT = "overflow"


def softmax(logits, axis=-1):
    e = np.exp(np.asarray(logits, dtype=np.longdouble))
    return (e / e.sum(axis=axis, keepdims=True)).astype(np.float64)
