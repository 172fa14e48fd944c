"""No max subtraction."""

import numpy as np

EXPECT = "subtract the max"


def softmax(logits, axis=-1):
    e = np.exp(logits)
    return e / e.sum(axis=axis, keepdims=True)
