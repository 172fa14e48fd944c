"""No max subtraction."""

import numpy as np

EXPECT = "exp overflows for large logits"


def softmax(logits, axis=-1):
    e = np.exp(logits)
    return e / e.sum(axis=axis, keepdims=True)
