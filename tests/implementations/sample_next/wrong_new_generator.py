"""Makes a fresh generator each call from a fixed seed: the same token every time."""

import numpy as np


def _filter(logits, temperature, top_k, top_p):
    z = logits / temperature
    probs = np.exp(z - z.max())
    probs /= probs.sum()
    if top_k is not None:
        probs[np.argsort(-probs)[top_k:]] = 0
        probs /= probs.sum()
    if top_p is not None:
        order = np.argsort(-probs)
        before = np.cumsum(probs[order]) - probs[order]
        probs[order[1:][before[1:] >= top_p]] = 0
        probs /= probs.sum()
    return probs


EXPECT = "a new generator on every call?"


def sample_next(logits, rng, temperature=1.0, top_k=None, top_p=None):
    probs = _filter(logits, temperature, top_k, top_p)
    return int(np.random.default_rng(0).choice(len(probs), p=probs))
