"""Subtracts the max in place."""

import numpy as np

EXPECT = "modified"


def softmax(logits, axis=-1):
    logits -= logits.max(axis=axis, keepdims=True)
    np.exp(logits, out=logits)
    return logits / logits.sum(axis=axis, keepdims=True)
