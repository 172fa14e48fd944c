"""Top-p of exp(z - max z) ** (1 / t): far logits lose their mass at large temperatures."""

import numpy as np

EXPECT = "entries differ"


def top_p_probs(logits, p, temperature=1.0):
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    z = np.asarray(logits, dtype=float)
    probs = np.exp(z - z.max()) ** (1 / temperature)
    probs /= probs.sum()
    order = np.argsort(-probs, kind="stable")
    before = np.cumsum(probs[order]) - probs[order]
    keep = order[(before < p) | (np.arange(len(order)) == 0)]
    out = np.zeros_like(probs)
    out[keep] = probs[keep]
    return out / out.sum()
