"""For a tiny p keeps nothing (nan after renormalising)."""

import numpy as np


def _probs(logits, temperature):
    z = logits / temperature
    e = np.exp(z - z.max())
    return e / e.sum()


EXPECT = "nan"


def top_p_probs(logits, p, temperature=1.0):
    if temperature <= 0:
        raise ValueError("bad temperature")
    probs = _probs(logits, temperature)
    order = np.argsort(-probs)
    keep = order[np.cumsum(probs[order]) - probs[order] < p - probs[order][0]]
    out = np.zeros_like(probs)
    out[keep] = probs[keep]
    with np.errstate(invalid="ignore"):
        return out / out.sum()
