"""Accumulates mass in vocabulary order, not most likely first."""

import numpy as np


def _probs(logits, temperature):
    z = logits / temperature
    e = np.exp(z - z.max())
    return e / e.sum()


EXPECT = "differ"


def top_p_probs(logits, p, temperature=1.0):
    if temperature <= 0:
        raise ValueError("bad temperature")
    probs = _probs(logits, temperature)
    before = np.cumsum(probs) - probs
    out = np.where(before < p, probs, 0.0)
    return out / out.sum()
