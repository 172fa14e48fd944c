"""Keeps a token only while the mass including it stays <= p."""

import numpy as np


def _probs(logits, temperature):
    z = logits / temperature
    e = np.exp(z - z.max())
    return e / e.sum()


EXPECT = "crosses p"


def top_p_probs(logits, p, temperature=1.0):
    if temperature <= 0:
        raise ValueError("bad temperature")
    probs = _probs(logits, temperature)
    order = np.argsort(-probs)
    keep = order[np.cumsum(probs[order]) <= p]
    out = np.zeros_like(probs)
    out[keep] = probs[keep]
    out[order[0]] = probs[order[0]]
    return out / out.sum()
