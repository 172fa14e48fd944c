"""exp(z / t - max z): nan at small and large temperatures."""

import numpy as np

EXPECT = "not numerically stable"


def sample_next(logits, rng, temperature=1.0, top_k=None, top_p=None):
    z = np.asarray(logits, dtype=float)
    probs = np.exp(z / temperature - z.max())
    probs /= probs.sum()
    order = np.argsort(-probs, kind="stable")
    keep = np.zeros(len(probs), dtype=bool)
    keep[order[: top_k or len(probs)]] = True
    probs = np.where(keep, probs, 0.0)
    probs /= probs.sum()
    if top_p is not None:
        ranked = probs[order]
        before = np.cumsum(ranked) - ranked
        drop = order[(before >= top_p) & (np.arange(len(order)) > 0)]
        probs[drop] = 0.0
        probs /= probs.sum()
    return int(rng.choice(len(probs), p=probs))
