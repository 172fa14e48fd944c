"""Sort, cumulative mass before each token, mask, renormalise."""

import numpy as np

EXPECT = "pass"


def top_p_probs(logits, p, temperature=1.0):
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    z = logits / temperature
    probs = np.exp(z - z.max())
    probs /= probs.sum()
    order = np.argsort(-probs)
    before = np.cumsum(probs[order]) - probs[order]
    keep = order[before < p]
    out = np.zeros_like(probs)
    out[keep] = probs[keep]
    out[order[0]] = probs[order[0]]
    return out / out.sum()
