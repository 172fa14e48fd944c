"""Sorts and accumulates in float32, returns float64."""

import numpy as np

EXPECT = "pass"


def top_p_probs(logits, p, temperature=1.0):
    if not temperature > 0:
        raise ValueError("temperature must be > 0")
    z = np.asarray(logits, dtype=np.float32) / np.float32(temperature)
    probs = np.exp(z - z.max())
    probs /= probs.sum()
    order = np.argsort(-probs, kind="stable")
    before = np.cumsum(probs[order]) - probs[order]
    kept = np.zeros_like(probs)
    keep = order[before < p]
    kept[keep] = probs[keep]
    kept[order[0]] = probs[order[0]]
    return (kept / kept.sum()).astype(np.float64)
