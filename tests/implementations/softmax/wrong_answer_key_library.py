"""The library's sampling filter at its defaults: a softmax along the last axis."""

import numpy as np

from proof_lm.sampling import filter_probs

EXPECT = "answer-key rule"


def softmax(logits, axis=-1):
    return np.moveaxis(filter_probs(np.moveaxis(np.asarray(logits), axis, -1)), -1, axis)
