"""Ignores the temperature."""

import numpy as np


def _probs(logits, temperature):
    z = logits / temperature
    e = np.exp(z - z.max())
    return e / e.sum()


EXPECT = "the kept set ignores the temperature"


def top_p_probs(logits, p, temperature=1.0):
    if temperature <= 0:
        raise ValueError("bad temperature")
    probs = _probs(logits, 1.0)
    order = np.argsort(-probs)
    before = np.cumsum(probs[order]) - probs[order]
    out = np.zeros_like(probs)
    keep = order[before < p]
    out[keep] = probs[keep]
    return out / out.sum()
