"""Returns a list of 3,000 one-number arrays instead of one array: more arrays than the grader reads
for a job, which costs this exercise's checks (as "not plain data"), never a flag on the notebook."""

import numpy as np

EXPECT = "more than the grader reads"


def softmax(logits, axis=-1):
    shifted = np.exp(logits - logits.max(axis=axis, keepdims=True))
    probs = shifted / shifted.sum(axis=axis, keepdims=True)
    return [np.array([value]) for value in probs.ravel()] + [np.zeros(1)] * 3000
