"""Right nucleus, but exp without subtracting the max: nan at large logits or small temperatures."""

import numpy as np

EXPECT = "nan or inf"


def top_p_probs(logits, p, temperature=1.0):
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    e = np.exp(logits / temperature)
    probs = e / e.sum()
    order = np.argsort(-probs)
    before = np.cumsum(probs[order]) - probs[order]
    keep = order[before < p]
    out = np.zeros_like(probs)
    out[keep] = probs[keep]
    out[order[0]] = probs[order[0]]
    return out / out.sum()
