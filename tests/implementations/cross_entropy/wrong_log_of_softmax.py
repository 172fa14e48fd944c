"""log(softmax): stable softmax, but log of 0 for very unlikely targets."""

import numpy as np

EXPECT = "log be taken before the exp"


def cross_entropy(logits, targets):
    if logits.ndim != 2 or targets.ndim != 1 or len(targets) != len(logits):
        raise ValueError("bad shapes")
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    return float(-np.log(p[np.arange(len(targets)), targets]).mean())
