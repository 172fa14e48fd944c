"""Divides the caller's logits in place."""

import numpy as np

EXPECT = "modified"


def temperature_probs(logits, temperature):
    if temperature <= 0:
        raise ValueError("bad temperature")
    logits /= temperature
    e = np.exp(logits - logits.max())
    return e / e.sum()
