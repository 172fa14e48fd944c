"""Inverse CDF with rng.random(), greedy shortcut for top_k=1."""

import numpy as np

EXPECT = "pass"


def sample_next(logits, rng, temperature=1.0, top_k=None, top_p=None):
    z = np.asarray(logits, dtype=float) / temperature
    p = np.exp(z - z.max())
    p /= p.sum()
    if top_k == 1:
        return int(np.argmax(p))
    order = np.argsort(-p)
    ranked = p[order]
    if top_k is not None:
        ranked[top_k:] = 0
        ranked /= ranked.sum()
    if top_p is not None:
        before = np.cumsum(ranked) - ranked
        ranked[1:][before[1:] >= top_p] = 0
        ranked /= ranked.sum()
    u = rng.random()
    return int(order[min(np.searchsorted(np.cumsum(ranked), u, side="right"), len(p) - 1)])
